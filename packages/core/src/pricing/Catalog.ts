/**
 * The price catalog file format (what `FRANK_PRICING_CATALOG` points at). Prices are integer
 * micro-franks per billing unit; multipliers are integer basis points (10 000 = ×1), so every
 * quote is computed exactly and rounded once, up to 0.01 ₣.
 */
import { Either, ParseResult, Schema } from "effect"

export const Family = Schema.Literal("video", "image", "audio", "text", "processing")
export type Family = typeof Family.Type
export const families: ReadonlyArray<Family> = Family.literals

export const Quality = Schema.Literal("low", "medium", "high")
export type Quality = typeof Quality.Type

const Micros = Schema.Int.pipe(Schema.nonNegative())
const BasisPoints = Schema.Int.pipe(Schema.between(1, 1_000_000))
const Name = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9._:+-]{1,64}$/))

/** How the quantity of billing units is measured. */
export const Metering = Schema.Union(
  /** Per second of output, from `duration`. */
  Schema.Struct({ kind: Schema.Literal("seconds"), minSeconds: Schema.Int.pipe(Schema.positive()), maxSeconds: Schema.Int.pipe(Schema.positive()), defaultSeconds: Schema.Int.pipe(Schema.positive()) }),
  /** Per started minute of input audio, from `duration` in seconds. */
  Schema.Struct({ kind: Schema.Literal("minutes"), maxSeconds: Schema.Int.pipe(Schema.positive()) }),
  /** Per 1,000 prompt tokens (o200k encoding), at least `minimumTokens`. */
  Schema.Struct({ kind: Schema.Literal("tokens"), minimumTokens: Schema.Int.pipe(Schema.nonNegative()) }),
  /** One unit per request (per output image for image models). */
  Schema.Struct({ kind: Schema.Literal("request") })
)
export type Metering = typeof Metering.Type

export const Operation = Schema.Struct({
  operation: Name,
  billingUnit: Schema.String,
  metering: Metering,
  pricePerUnitMicros: Micros,
  /** Mode name → multiplier; the first is the default when the request names none. */
  modes: Schema.Record({ key: Name, value: BasisPoints }),
  defaultMode: Name,
  resolutions: Schema.optional(Schema.Record({ key: Schema.String.pipe(Schema.maxLength(16)), value: BasisPoints })),
  defaultResolution: Schema.optional(Schema.String),
  qualities: Schema.optional(Schema.partial(Schema.Struct({ low: BasisPoints, medium: BasisPoints, high: BasisPoints }))),
  defaultQuality: Schema.optional(Quality),
  /** Surcharge per input image (`imageCount`), up to `maxInputImages`. */
  inputImageMicros: Schema.optional(Micros),
  maxInputImages: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  referenceImageMicros: Schema.optional(Micros),
  referenceVideoMicros: Schema.optional(Micros),
  referenceAudioMicros: Schema.optional(Micros),
  /** `imageOutputCount` multiplies the price (image models that render `n` images). */
  outputCountMultiplies: Schema.optional(Schema.Boolean),
  /** Surcharge per voice, applied only when the prompt contains `<<<voice_N>>>` markup. */
  voiceMicros: Schema.optional(Micros),
  /** Prompt required (token-priced models, and models that cannot run without one). */
  promptRequired: Schema.optional(Schema.Boolean)
})
export type Operation = typeof Operation.Type

export const Model = Schema.Struct({
  modelId: Name,
  family: Family,
  title: Schema.String.pipe(Schema.minLength(1)),
  operations: Schema.NonEmptyArray(Operation),
  deprecated: Schema.optional(Schema.Boolean)
})
export type Model = typeof Model.Type

export const CatalogFile = Schema.Struct({
  version: Schema.Literal(1),
  refreshAfterSeconds: Schema.Int.pipe(Schema.between(60, 7 * 86_400)),
  models: Schema.NonEmptyArray(Model)
})
export type Catalog = typeof CatalogFile.Type

export class CatalogInvalid extends Schema.TaggedError<CatalogInvalid>()("CatalogInvalid", {
  message: Schema.String,
  problems: Schema.Array(Schema.String)
}) {}

/** Rules a schema cannot say: unique ids, defaults among allowed values, sane ranges. */
const crossChecks = (c: Catalog): string[] => {
  const problems: string[] = []
  const seen = new Set<string>()
  c.models.forEach((m, i) => {
    const at = `models.${i} (${m.modelId})`
    if (seen.has(m.modelId)) problems.push(`${at}: duplicate modelId`)
    seen.add(m.modelId)
    const ops = new Set<string>()
    m.operations.forEach((o, j) => {
      const op = `${at}.operations.${j} (${o.operation})`
      if (ops.has(o.operation)) problems.push(`${op}: duplicate operation`)
      ops.add(o.operation)
      if (!(o.defaultMode in o.modes)) problems.push(`${op}: defaultMode ${o.defaultMode} is not among modes`)
      if ((o.resolutions === undefined) !== (o.defaultResolution === undefined)) problems.push(`${op}: resolutions and defaultResolution go together`)
      if (o.resolutions !== undefined && o.defaultResolution !== undefined && !(o.defaultResolution in o.resolutions))
        problems.push(`${op}: defaultResolution ${o.defaultResolution} is not among resolutions`)
      if ((o.qualities === undefined) !== (o.defaultQuality === undefined)) problems.push(`${op}: qualities and defaultQuality go together`)
      if (o.qualities !== undefined && o.defaultQuality !== undefined && o.qualities[o.defaultQuality] === undefined)
        problems.push(`${op}: defaultQuality ${o.defaultQuality} is not among qualities`)
      if (o.metering.kind === "seconds") {
        const { minSeconds, maxSeconds, defaultSeconds } = o.metering
        if (minSeconds > maxSeconds || defaultSeconds < minSeconds || defaultSeconds > maxSeconds)
          problems.push(`${op}: seconds metering needs minSeconds ≤ defaultSeconds ≤ maxSeconds`)
      }
      if (o.metering.kind === "tokens" && o.promptRequired !== true) problems.push(`${op}: token-metered operations need promptRequired: true`)
    })
  })
  const highs = c.models.flatMap((m) => m.operations.filter((o) => o.qualities?.high !== undefined).map(() => m.modelId))
  if (new Set(highs).size > 1) problems.push(`quality "high" is offered by one model only; found it on ${[...new Set(highs)].join(", ")}`)
  return problems
}

/** Decodes and checks a catalog; every problem is reported with its path. */
export const decodeCatalog = (input: unknown): Either.Either<Catalog, CatalogInvalid> => {
  const decoded = Schema.decodeUnknownEither(CatalogFile, { errors: "all", onExcessProperty: "error" })(input)
  if (Either.isLeft(decoded)) {
    const problems = ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
    return Either.left(new CatalogInvalid({ message: `price catalog is invalid:\n${problems.join("\n")}`, problems }))
  }
  const problems = crossChecks(decoded.right)
  return problems.length === 0
    ? Either.right(decoded.right)
    : Either.left(new CatalogInvalid({ message: `price catalog is invalid:\n${problems.join("\n")}`, problems }))
}

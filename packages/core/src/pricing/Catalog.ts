/**
 * The price catalog file format (what `FRANK_PRICING_CATALOG` points at; the bundled
 * `catalog/sample-catalog.json` is the reference example).
 *
 * Money is exact: prices and surcharges are integer micro-franks (1 ₣ = 1 000 000), multipliers
 * are integer basis points (10 000 = ×1), so an estimate is an exact fraction rounded once, up to
 * 0.01 ₣. The schema carries every rule the estimator relies on (unique ids, defaults among the
 * allowed values, billing unit matching the metering, …), so a file that decodes can be priced
 * without further checks, and each problem is reported with its path in the file.
 */
import { Effect, Either, ParseResult, Schema } from "effect"
import { DAY_SECONDS } from "../timeUnits.js"

/** The families of catalog models: video, image, audio, text, processing. */
export const Family = Schema.Literal("video", "image", "audio", "text", "processing")
export type Family = typeof Family.Type
export const families: ReadonlyArray<Family> = Family.literals

/** The quality levels a model may be run at. */
export const Quality = Schema.Literal("low", "medium", "high").annotations({
  // One line instead of one per literal, in the wording of the API's other validation messages.
  message: (issue) => ({
    message: `must be one of "low", "medium", "high"; got ${JSON.stringify(issue.actual)}`,
    override: true
  })
})
export type Quality = typeof Quality.Type

export const BillingUnit = Schema.Literal("second", "minute", "image", "1K tokens", "request")
export type BillingUnit = typeof BillingUnit.Type

/** 1 000 000 ₣ per unit: far above any real price, and keeps every product below 2^53 before BigInt. */
export const MAX_PRICE_MICROS = 1_000_000_000_000
/** ×100 at most; ×0.0001 at least (a zero multiplier would make a model free by accident). */
export const MAX_MULTIPLIER_BP = 1_000_000
export const BP_ONE = 10_000

const Micros = Schema.Int.annotations({ message: () => "must be an integer number of micro-franks" }).pipe(
  Schema.between(0, MAX_PRICE_MICROS, { message: () => `must be between 0 and ${MAX_PRICE_MICROS} micro-franks` })
)
const BasisPoints = Schema.Int.annotations({
  message: () => "must be an integer number of basis points (10000 = ×1)"
}).pipe(
  Schema.between(1, MAX_MULTIPLIER_BP, { message: () => `must be between 1 and ${MAX_MULTIPLIER_BP} basis points` })
)
const PositiveInt = Schema.Int.annotations({ message: () => "must be an integer" }).pipe(
  Schema.positive({ message: () => "must be > 0" })
)
const NonNegativeInt = Schema.Int.annotations({ message: () => "must be an integer" }).pipe(
  Schema.nonNegative({ message: () => "must be ≥ 0" })
)
const Name = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9._:+-]{1,64}$/, { message: () => "must be 1-64 characters of A-Z a-z 0-9 . _ : + -" })
)
/** Resolution names are request values, which the API limits to 16 characters. */
const ResolutionName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9._:+-]{1,16}$/, { message: () => "must be 1-16 characters of A-Z a-z 0-9 . _ : + -" })
)

/** Optional without an explicit `undefined` (JSON has none): one message per bad value. */
const optional = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** How the quantity of billing units is measured. */
export const Metering = Schema.Union(
  /** Per second of output, from `duration` (default `defaultSeconds`). */
  Schema.Struct({
    kind: Schema.Literal("seconds"),
    minSeconds: PositiveInt,
    maxSeconds: PositiveInt,
    defaultSeconds: PositiveInt
  }),
  /** Per started minute of input, from `duration` in seconds (required). */
  Schema.Struct({ kind: Schema.Literal("minutes"), maxSeconds: PositiveInt }),
  /** Per 1 000 prompt tokens (o200k encoding), at least `minimumTokens`. */
  Schema.Struct({ kind: Schema.Literal("tokens"), minimumTokens: NonNegativeInt }),
  /** One unit per request (per output image, for image models). */
  Schema.Struct({ kind: Schema.Literal("request") })
)
export type Metering = typeof Metering.Type

/** The billing units that make sense for each metering. */
const unitsOfMetering: Record<Metering["kind"], ReadonlyArray<BillingUnit>> = {
  seconds: ["second"],
  minutes: ["minute"],
  tokens: ["1K tokens"],
  request: ["request", "image"]
}

const OperationFields = Schema.Struct({
  operation: Name,
  billingUnit: BillingUnit,
  metering: Metering,
  pricePerUnitMicros: Micros,
  /** Mode name → multiplier; every operation has at least one mode. */
  modes: Schema.Record({ key: Name, value: BasisPoints }),
  defaultMode: Name,
  /** Resolution name → multiplier; absent: the operation takes no resolution. */
  resolutions: optional(Schema.Record({ key: ResolutionName, value: BasisPoints })),
  defaultResolution: optional(ResolutionName),
  /** Quality tier → multiplier; absent: the operation takes no quality. */
  qualities: optional(Schema.partial(Schema.Struct({ low: BasisPoints, medium: BasisPoints, high: BasisPoints }))),
  defaultQuality: optional(Quality),
  /** Surcharge per input image (`imageCount`), up to `maxInputImages`; absent: no input images. */
  inputImageMicros: optional(Micros),
  maxInputImages: optional(NonNegativeInt),
  /** Surcharges per reference item; absent: the operation takes no such references. */
  referenceImageMicros: optional(Micros),
  referenceVideoMicros: optional(Micros),
  referenceAudioMicros: optional(Micros),
  /** `imageOutputCount` (`n`) multiplies the price of the rendered output; absent/false: n must be 1. */
  outputCountMultiplies: optional(Schema.Boolean),
  /** Surcharge per voice, applied only when the prompt contains `<<<voice_N>>>` markup. */
  voiceMicros: optional(Micros),
  /** The request must carry a non-blank prompt (always so for token-metered operations). */
  promptRequired: optional(Schema.Boolean)
})

/** Rules between the fields of one operation. */
const operationIssues = (o: typeof OperationFields.Type): Array<Schema.FilterIssue> => {
  const issues: Array<Schema.FilterIssue> = []
  const allowed = (xs: object) => Object.keys(xs).join(", ")
  if (!unitsOfMetering[o.metering.kind].includes(o.billingUnit))
    issues.push({
      path: ["billingUnit"],
      message: `"${o.billingUnit}" does not fit ${o.metering.kind} metering; use ${unitsOfMetering[o.metering.kind].map((u) => `"${u}"`).join(" or ")}`
    })
  if (!Object.hasOwn(o.modes, o.defaultMode))
    issues.push({ path: ["defaultMode"], message: `"${o.defaultMode}" is not among modes (${allowed(o.modes)})` })
  if (o.resolutions === undefined) {
    if (o.defaultResolution !== undefined) issues.push({ path: ["defaultResolution"], message: "needs resolutions" })
  } else if (Object.keys(o.resolutions).length === 0)
    issues.push({ path: ["resolutions"], message: "must list at least one resolution (or be left out)" })
  else if (o.defaultResolution === undefined)
    issues.push({ path: ["defaultResolution"], message: "is required when resolutions are listed" })
  else if (!Object.hasOwn(o.resolutions, o.defaultResolution))
    issues.push({
      path: ["defaultResolution"],
      message: `"${o.defaultResolution}" is not among resolutions (${allowed(o.resolutions)})`
    })
  if (o.qualities === undefined) {
    if (o.defaultQuality !== undefined) issues.push({ path: ["defaultQuality"], message: "needs qualities" })
  } else if (Object.keys(o.qualities).length === 0)
    issues.push({ path: ["qualities"], message: "must list at least one quality (or be left out)" })
  else if (o.defaultQuality === undefined)
    issues.push({ path: ["defaultQuality"], message: "is required when qualities are listed" })
  else if (o.qualities[o.defaultQuality] === undefined)
    issues.push({
      path: ["defaultQuality"],
      message: `"${o.defaultQuality}" is not among qualities (${allowed(o.qualities)})`
    })
  if (o.metering.kind === "seconds") {
    const { minSeconds, maxSeconds, defaultSeconds } = o.metering
    if (!(minSeconds <= defaultSeconds && defaultSeconds <= maxSeconds))
      issues.push({
        path: ["metering"],
        message: `needs minSeconds ≤ defaultSeconds ≤ maxSeconds (got ${minSeconds}, ${defaultSeconds}, ${maxSeconds})`
      })
  }
  if (o.metering.kind === "tokens" && o.promptRequired !== true)
    issues.push({
      path: ["promptRequired"],
      message: "must be true for token-metered operations (the prompt is what is priced)"
    })
  if (o.maxInputImages !== undefined && o.inputImageMicros === undefined)
    issues.push({ path: ["maxInputImages"], message: "needs inputImageMicros" })
  return issues
}

export const Operation = OperationFields.pipe(Schema.filter(operationIssues)).annotations({
  identifier: "CatalogOperation"
})
export type Operation = typeof Operation.Type

const ModelFields = Schema.Struct({
  modelId: Name,
  family: Family,
  title: Schema.String.pipe(
    Schema.minLength(1, { message: () => "must not be empty" }),
    Schema.maxLength(200, { message: () => "must be at most 200 characters" })
  ),
  /** The first operation is the default when a request names none. */
  operations: Schema.Array(Operation).pipe(Schema.minItems(1, { message: () => "must list at least one operation" })),
  deprecated: optional(Schema.Boolean),
  /** Seconds a task's hold lives at most for this model; shortens the engine's (never lengthens it). */
  holdTtlSeconds: optional(PositiveInt)
})

const duplicates = <A>(
  items: ReadonlyArray<A>,
  key: (a: A) => string,
  path: (i: number) => ReadonlyArray<PropertyKey>,
  what: string
) => {
  const seen = new Set<string>()
  const issues: Array<Schema.FilterIssue> = []
  items.forEach((item, i) => {
    const k = key(item)
    if (seen.has(k)) issues.push({ path: path(i), message: `duplicate ${what} "${k}"` })
    seen.add(k)
  })
  return issues
}

export const Model = ModelFields.pipe(
  Schema.filter((m) =>
    duplicates(
      m.operations,
      (o) => o.operation,
      (i) => ["operations", i, "operation"],
      "operation"
    )
  )
).annotations({ identifier: "CatalogModel" })
export type Model = typeof Model.Type

const CatalogFields = Schema.Struct({
  version: Schema.Literal(1).annotations({ message: () => "must be 1 (the only catalog format version)" }),
  /** How long clients may keep the catalog; the spec says once per 24 h suffices. */
  refreshAfterSeconds: Schema.Int.pipe(
    Schema.between(60, 7 * DAY_SECONDS, { message: () => `must be an integer between 60 and ${7 * DAY_SECONDS}` })
  ),
  models: Schema.Array(Model).pipe(Schema.minItems(1, { message: () => "must list at least one model" }))
}).annotations({ identifier: "PricingCatalogFile" })

const catalogIssues = (c: typeof CatalogFields.Type): Array<Schema.FilterIssue> => {
  const issues = duplicates(
    c.models,
    (m) => m.modelId,
    (i) => ["models", i, "modelId"],
    "modelId"
  )
  // docs/contract.md §5: quality "high" exists for one model only.
  const withHigh = c.models.flatMap((m, i) => (m.operations.some((o) => o.qualities?.high !== undefined) ? [i] : []))
  for (const i of withHigh.slice(1))
    issues.push({
      path: ["models", i, "operations"],
      message: `quality "high" is offered by one model only; ${c.models[withHigh[0]!]!.modelId} already offers it`
    })
  return issues
}

export const CatalogFile = CatalogFields.pipe(Schema.filter(catalogIssues)).annotations({
  identifier: "PricingCatalogFile"
})
/** The price catalog: models, operations and their prices. */
export type Catalog = typeof CatalogFile.Type

export class CatalogInvalid extends Schema.TaggedError<CatalogInvalid>()("CatalogInvalid", {
  message: Schema.String,
  /** One line per problem: `<path>: <message>`, e.g. `models.2.operations.0.defaultMode: "x" is not among modes (std, pro)`. */
  problems: Schema.Array(Schema.String)
}) {}

/** Decodes and checks a catalog; every problem is reported with its path. Unknown fields are errors (typos). */
export const decodeCatalog = (input: unknown): Either.Either<Catalog, CatalogInvalid> =>
  Either.mapLeft(
    Schema.decodeUnknownEither(CatalogFile, { errors: "all", onExcessProperty: "error" })(input),
    (error) => {
      const problems = ParseResult.ArrayFormatter.formatErrorSync(error).map(
        (i) => `${i.path.length === 0 ? "(root)" : i.path.join(".")}: ${i.message}`
      )
      return new CatalogInvalid({ message: `price catalog is invalid:\n${problems.join("\n")}`, problems })
    }
  )

/** The same as an Effect, for programs that load the catalog at start-up. */
export const loadCatalog = (json: unknown): Effect.Effect<Catalog, CatalogInvalid> =>
  Effect.suspend(() => decodeCatalog(json))

export const findModel = (catalog: Catalog, modelId: string): Model | undefined =>
  catalog.models.find((m) => m.modelId === modelId)

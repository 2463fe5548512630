/**
 * The body of `POST /v1/billing/pricing/estimate` (spec "Cost estimate request fields"). Integer
 * fields accept numeric strings ("5" → 5), unknown fields are stripped and every violation is
 * reported at once (the parse options travel with the schema, because HttpApi decodes with none).
 * Whether a value fits the chosen model is the estimator's business, not the schema's.
 */
import { Schema } from "effect"
import { DAY_SECONDS } from "../timeUnits.js"
import { Quality } from "./Catalog.js"

export const MAX_PROMPT_CHARS = 3000
export const MAX_RESOLUTION_CHARS = 16
/** Longest modelId / operation / mode the catalog format allows. */
export const MAX_NAME_CHARS = 64
/** Input images per request the API accepts at all; a model may allow fewer. */
export const MAX_IMAGE_COUNT = 30

const NameField = Schema.String.pipe(
  Schema.maxLength(MAX_NAME_CHARS, { message: () => `must be at most ${MAX_NAME_CHARS} characters` })
)

/**
 * An integer from a JSON number or a numeric string ("5" → 5). The overriding message keeps a bad
 * value to one line instead of one per union branch.
 */
const RequestInt = Schema.Union(Schema.Int, Schema.compose(Schema.NumberFromString, Schema.Int)).annotations({
  description: "an integer, or a string of one",
  message: () => ({ message: "must be an integer", override: true })
})

/** An integer field within [min, max]; the range is checked after coercion. */
const IntBetween = (min: number, max: number) =>
  RequestInt.pipe(Schema.between(min, max, { message: () => `must be an integer between ${min} and ${max}` }))

/**
 * Optional without an explicit `undefined`: a JSON body never carries one, and it keeps a bad
 * value to one message (a `X | undefined` union would also report "Expected undefined").
 */
const optional = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** A request for a price estimate: model, operation and parameters. */
export const EstimateRequest = Schema.Struct({
  modelId: NameField.pipe(Schema.minLength(1, { message: () => "must not be empty" })),
  /** Absent: the model's first (default) operation. */
  operation: optional(NameField),
  /** Absent: the operation's default mode. */
  mode: optional(NameField),
  resolution: optional(
    Schema.String.pipe(
      Schema.maxLength(MAX_RESOLUTION_CHARS, { message: () => `must be at most ${MAX_RESOLUTION_CHARS} characters` })
    )
  ),
  /** Seconds; the model's own range is checked by the estimator. */
  duration: optional(IntBetween(1, DAY_SECONDS)),
  prompt: optional(
    Schema.String.pipe(
      Schema.maxLength(MAX_PROMPT_CHARS, { message: () => `must be at most ${MAX_PROMPT_CHARS} characters` })
    )
  ),
  imageCount: optional(IntBetween(0, MAX_IMAGE_COUNT)),
  referenceImageCount: optional(IntBetween(0, 30)),
  referenceVideoCount: optional(IntBetween(0, 10)),
  referenceAudioCount: optional(IntBetween(0, 10)),
  imageOutputCount: optional(IntBetween(1, 9)),
  voiceCount: optional(IntBetween(0, 10)),
  quality: optional(Quality)
}).annotations({
  identifier: "EstimateRequest",
  // HttpApi decodes with no options, so they travel with the schema: all violations, unknown fields stripped.
  parseOptions: { errors: "all", onExcessProperty: "ignore" }
})
export type EstimateRequest = typeof EstimateRequest.Type

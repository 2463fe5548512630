/**
 * The body of `POST /v1/billing/pricing/estimate` (spec "Cost estimate request fields"). Integer
 * fields accept numeric strings ("5" → 5), unknown fields are stripped and every violation is
 * reported at once (the parse options travel with the schema, because HttpApi decodes with none).
 * Whether a value fits the chosen model is the estimator's business, not the schema's.
 */
import { Schema } from "effect"
import { BodyInt, requestParseOptions } from "../http/coerce.js"
import { Quality } from "./Catalog.js"

export const MAX_PROMPT_CHARS = 3000
export const MAX_RESOLUTION_CHARS = 16
/** Longest modelId / operation / mode the catalog format allows. */
export const MAX_NAME_CHARS = 64
/** Input images per request the API accepts at all; a model may allow fewer. */
export const MAX_IMAGE_COUNT = 30

const NameField = Schema.String.pipe(Schema.maxLength(MAX_NAME_CHARS, { message: () => `must be at most ${MAX_NAME_CHARS} characters` }))

export const EstimateRequest = Schema.Struct({
  modelId: NameField.pipe(Schema.minLength(1, { message: () => "must not be empty" })),
  /** Absent: the model's first (default) operation. */
  operation: Schema.optional(NameField),
  /** Absent: the operation's default mode. */
  mode: Schema.optional(NameField),
  resolution: Schema.optional(
    Schema.String.pipe(Schema.maxLength(MAX_RESOLUTION_CHARS, { message: () => `must be at most ${MAX_RESOLUTION_CHARS} characters` }))
  ),
  /** Seconds; the model's own range is checked by the estimator. */
  duration: Schema.optional(BodyInt(1, 86_400)),
  prompt: Schema.optional(Schema.String.pipe(Schema.maxLength(MAX_PROMPT_CHARS, { message: () => `must be at most ${MAX_PROMPT_CHARS} characters` }))),
  imageCount: Schema.optional(BodyInt(0, MAX_IMAGE_COUNT)),
  referenceImageCount: Schema.optional(BodyInt(0, 30)),
  referenceVideoCount: Schema.optional(BodyInt(0, 10)),
  referenceAudioCount: Schema.optional(BodyInt(0, 10)),
  imageOutputCount: Schema.optional(BodyInt(1, 9)),
  voiceCount: Schema.optional(BodyInt(0, 10)),
  quality: Schema.optional(Quality)
}).annotations({ identifier: "EstimateRequest", ...requestParseOptions })
export type EstimateRequest = typeof EstimateRequest.Type

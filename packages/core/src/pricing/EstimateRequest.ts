/**
 * The body of `POST /v1/billing/pricing/estimate` (spec "Cost estimate request fields"). Integer
 * fields accept numeric strings; unknown fields are stripped; every violation is reported.
 */
import { Schema } from "effect"
import { BodyInt, requestParseOptions } from "../http/coerce.js"
import { Quality } from "./Catalog.js"

export const MAX_PROMPT_CHARS = 3000

export const EstimateRequest = Schema.Struct({
  modelId: Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" }), Schema.maxLength(64)),
  operation: Schema.optional(Schema.String.pipe(Schema.maxLength(64))),
  mode: Schema.optional(Schema.String.pipe(Schema.maxLength(64))),
  resolution: Schema.optional(Schema.String.pipe(Schema.maxLength(16, { message: () => "must be at most 16 characters" }))),
  duration: Schema.optional(BodyInt(1, 86_400)),
  prompt: Schema.optional(Schema.String.pipe(Schema.maxLength(MAX_PROMPT_CHARS, { message: () => `must be at most ${MAX_PROMPT_CHARS} characters` }))),
  imageCount: Schema.optional(BodyInt(0, 30)),
  referenceImageCount: Schema.optional(BodyInt(0, 30)),
  referenceVideoCount: Schema.optional(BodyInt(0, 10)),
  referenceAudioCount: Schema.optional(BodyInt(0, 10)),
  imageOutputCount: Schema.optional(BodyInt(1, 9)),
  voiceCount: Schema.optional(BodyInt(0, 10)),
  quality: Schema.optional(Quality)
}).annotations({ identifier: "EstimateRequest", ...requestParseOptions })
export type EstimateRequest = typeof EstimateRequest.Type

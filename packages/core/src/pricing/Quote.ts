/**
 * A cost quote (the 200 body of `POST /v1/billing/pricing/estimate`): the total at the effective
 * tariff and how it was reached, and the rejection when the request does not fit the catalog.
 */
import { Schema } from "effect"

export const UNIT_OF_ACCOUNT = "Франки" as const

export const QuoteStep = Schema.Struct({
  step: Schema.Literal(
    "base",
    "mode",
    "resolution",
    "quality",
    "outputs",
    "inputImages",
    "referenceImages",
    "referenceVideos",
    "referenceAudios",
    "voices",
    "discount"
  ),
  description: Schema.String,
  /** A factor applied to the running subtotal (×1.5 is 1.5); display only, the arithmetic is exact. */
  multiplier: Schema.optional(Schema.Number),
  /** An amount added (surcharges) or subtracted (discount, negative), ₣. */
  amountFranks: Schema.optional(Schema.Number),
  /** The running subtotal after this step, ₣, rounded up to 0.01 for display. */
  subtotalFranks: Schema.Number
}).annotations({ identifier: "QuoteStep" })
export type QuoteStep = typeof QuoteStep.Type

/** A price quote: the amount in minor units and how it was computed. */
export const Quote = Schema.Struct({
  modelId: Schema.String,
  operation: Schema.String,
  mode: Schema.String,
  resolution: Schema.NullOr(Schema.String),
  quality: Schema.NullOr(Schema.String),
  billingUnit: Schema.String,
  units: Schema.Number.annotations({
    description: "Billing units priced (seconds, started minutes, images, requests, or thousands of tokens)"
  }),
  tokens: Schema.NullOr(Schema.Number).annotations({
    description: "Prompt tokens counted (o200k), for token-priced models"
  }),
  pricePerUnitFranks: Schema.Number.annotations({
    description: "Base list price per billing unit, ₣ (up to 6 decimals)"
  }),
  breakdown: Schema.Array(QuoteStep),
  baseFranks: Schema.Number.annotations({ description: "Before the tariff discount, rounded up to 0.01 ₣" }),
  discountPercent: Schema.Number,
  discountFranks: Schema.Number.annotations({ description: "baseFranks − totalFranks" }),
  totalFranks: Schema.Number.annotations({
    description: "At the effective tariff: the exact amount rounded up to 0.01 ₣, once"
  }),
  unitOfAccount: Schema.Literal(UNIT_OF_ACCOUNT)
}).annotations({ identifier: "Quote" })
export type Quote = typeof Quote.Type

/** Machine codes of a rejected estimate. */
export const ESTIMATE_CODES = { modelUnknown: "PRICING_MODEL_UNKNOWN", invalid: "ESTIMATE_INVALID" } as const

export class EstimateRejected extends Schema.TaggedError<EstimateRejected>()("EstimateRejected", {
  /** `PRICING_MODEL_UNKNOWN` when the model is unknown, else `ESTIMATE_INVALID`. */
  code: Schema.String,
  /** HTTP status for the error envelope (domainErrors reads it). */
  status: Schema.optionalWith(Schema.Literal(400), { default: () => 400 as const }),
  message: Schema.String,
  /** Every problem, each naming the field and, for names, the allowed values. */
  messages: Schema.Array(Schema.String)
}) {}

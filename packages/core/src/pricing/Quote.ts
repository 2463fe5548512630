/**
 * A cost quote: the total at the effective tariff and how it was reached.
 */
import { Schema } from "effect"

export const QuoteStep = Schema.Struct({
  step: Schema.String,
  description: Schema.String,
  /** A multiplier applied to the running subtotal (×1.5 = 1.5). */
  multiplier: Schema.optional(Schema.Number),
  /** An amount added (surcharges) or subtracted (discount), ₣. */
  amountFranks: Schema.optional(Schema.Number),
  /** The running subtotal after this step, ₣, rounded up to 0.01 for display. */
  subtotalFranks: Schema.Number
})
export type QuoteStep = typeof QuoteStep.Type

export const Quote = Schema.Struct({
  modelId: Schema.String,
  operation: Schema.String,
  mode: Schema.String,
  resolution: Schema.NullOr(Schema.String),
  quality: Schema.NullOr(Schema.String),
  billingUnit: Schema.String,
  units: Schema.Number,
  tokens: Schema.NullOr(Schema.Number),
  pricePerUnitFranks: Schema.Number,
  breakdown: Schema.Array(QuoteStep),
  baseFranks: Schema.Number.annotations({ description: "Before the tariff discount" }),
  discountPercent: Schema.Number,
  discountFranks: Schema.Number,
  totalFranks: Schema.Number,
  unitOfAccount: Schema.Literal("Франки")
}).annotations({ identifier: "Quote" })
export type Quote = typeof Quote.Type

export class EstimateRejected extends Schema.TaggedError<EstimateRejected>()("EstimateRejected", {
  code: Schema.String,
  status: Schema.optionalWith(Schema.Literal(400), { default: () => 400 as const }),
  message: Schema.String,
  messages: Schema.Array(Schema.String)
}) {}

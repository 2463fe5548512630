/**
 * Typed ledger failures. Each carries the machine code the HTTP layer puts in the error envelope.
 */
import { Schema } from "effect"

export class InsufficientFunds extends Schema.TaggedError<InsufficientFunds>()("InsufficientFunds", {
  code: Schema.optionalWith(Schema.Literal("INSUFFICIENT_FUNDS"), { default: () => "INSUFFICIENT_FUNDS" as const }),
  message: Schema.String,
  requiredFranks: Schema.Number,
  availableFranks: Schema.Number
}) {}

export class HoldNotFound extends Schema.TaggedError<HoldNotFound>()("HoldNotFound", {
  code: Schema.optionalWith(Schema.Literal("HOLD_NOT_FOUND"), { default: () => "HOLD_NOT_FOUND" as const }),
  message: Schema.String,
  taskId: Schema.String
}) {}

/** Confirm after refund, or refund after confirm: the hold already resolved the other way. */
export class HoldAlreadySettled extends Schema.TaggedError<HoldAlreadySettled>()("HoldAlreadySettled", {
  code: Schema.optionalWith(Schema.Literal("HOLD_ALREADY_SETTLED"), { default: () => "HOLD_ALREADY_SETTLED" as const }),
  message: Schema.String,
  taskId: Schema.String,
  holdStatus: Schema.Literal("confirmed", "refunded")
}) {}

export class InvalidAmount extends Schema.TaggedError<InvalidAmount>()("InvalidAmount", {
  code: Schema.optionalWith(Schema.Literal("AMOUNT_INVALID"), { default: () => "AMOUNT_INVALID" as const }),
  message: Schema.String
}) {}

/** The same reference was used before for a movement with a different amount. */
export class ReferenceConflict extends Schema.TaggedError<ReferenceConflict>()("ReferenceConflict", {
  code: Schema.optionalWith(Schema.Literal("LEDGER_REFERENCE_CONFLICT"), {
    default: () => "LEDGER_REFERENCE_CONFLICT" as const
  }),
  message: Schema.String,
  reference: Schema.String
}) {}

export type LedgerError = InsufficientFunds | HoldNotFound | HoldAlreadySettled | InvalidAmount | ReferenceConflict

/**
 * Typed ledger failures. Each carries the machine code the HTTP layer puts in the error envelope.
 */
import { Schema } from "effect"

/** The available balance does not cover the amount (INSUFFICIENT_FUNDS, 402). */
export class InsufficientFunds extends Schema.TaggedError<InsufficientFunds>()("InsufficientFunds", {
  code: Schema.optionalWith(Schema.Literal("INSUFFICIENT_FUNDS"), { default: () => "INSUFFICIENT_FUNDS" as const }),
  message: Schema.String,
  requiredFranks: Schema.Number,
  availableFranks: Schema.Number
}) {}

/** No hold exists for that task (HOLD_NOT_FOUND). */
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

/** Grant terms (expiresAt, priority) that a credit may not carry (GRANT_INVALID, 400). */
export class InvalidGrant extends Schema.TaggedError<InvalidGrant>()("InvalidGrant", {
  code: Schema.optionalWith(Schema.Literal("GRANT_INVALID"), { default: () => "GRANT_INVALID" as const }),
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

/** Every error a ledger movement may fail with. */
export type LedgerError =
  | InsufficientFunds
  | HoldNotFound
  | HoldAlreadySettled
  | InvalidAmount
  | InvalidGrant
  | ReferenceConflict

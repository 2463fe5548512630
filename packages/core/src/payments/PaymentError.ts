/**
 * Typed failures of top-ups. Each carries its machine code and HTTP status, which the HTTP layer
 * copies into the error envelope (spec "Errors": 409 for a reused Idempotency-Key with another
 * amount; the codes themselves are ours).
 */
import { Schema } from "effect"
import { codedErrorFields as fields } from "../codedError.js"

/** The same Idempotency-Key was used earlier with another amount. */
export class PaymentIdempotencyConflict extends Schema.TaggedError<PaymentIdempotencyConflict>()(
  "PaymentIdempotencyConflict",
  fields("PAYMENT_IDEMPOTENCY_CONFLICT", 409)
) {}

/** No payment with that id belongs to the partner (PAYMENT_NOT_FOUND, 404). */
export class PaymentNotFound extends Schema.TaggedError<PaymentNotFound>()(
  "PaymentNotFound",
  fields("PAYMENT_NOT_FOUND", 404)
) {}

/** Schema checks repeated by the service for embedders that call it directly. */
export class PaymentRequestInvalid extends Schema.TaggedError<PaymentRequestInvalid>()("PaymentRequestInvalid", {
  ...fields("VALIDATION_FAILED", 400),
  messages: Schema.Array(Schema.String)
}) {}

/** The state machine refused a reported status (e.g. a confirmation after a cancel). */
export class PaymentTransitionRefused extends Schema.TaggedError<PaymentTransitionRefused>()(
  "PaymentTransitionRefused",
  fields("PAYMENT_TRANSITION_REFUSED", 409)
) {}

/** A notification that is not authentic or does not fit the payment it names (bad signature, other amount). */
export class PaymentNotificationInvalid extends Schema.TaggedError<PaymentNotificationInvalid>()(
  "PaymentNotificationInvalid",
  fields("PAYMENT_NOTIFICATION_INVALID", 400)
) {}

/**
 * The acquirer could not be reached or refused the request. Whether it created the payment is
 * unknown, so the API answers 500 and the client retries with the same Idempotency-Key (spec
 * "Retry rules"); the provider call is idempotent by our payment id.
 */
export class PaymentProviderError extends Schema.TaggedError<PaymentProviderError>()("PaymentProviderError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

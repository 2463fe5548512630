/**
 * Typed failures of the webhook area. Each carries its machine code and HTTP status, which the
 * HTTP layer copies into the error envelope. Replay codes are the spec's ("Machine codes for
 * replay"); registration codes are ours (the spec leaves them "not shown").
 */
import { Schema } from "effect"
import { codedErrorFields } from "../codedError.js"

const fields = codedErrorFields

/** No endpoint with that id belongs to the partner (WEBHOOK_ENDPOINT_NOT_FOUND, 404). */
export class EndpointNotFound extends Schema.TaggedError<EndpointNotFound>()(
  "EndpointNotFound",
  fields("WEBHOOK_ENDPOINT_NOT_FOUND", 404)
) {}
export class EndpointLimitExceeded extends Schema.TaggedError<EndpointLimitExceeded>()(
  "EndpointLimitExceeded",
  fields("WEBHOOK_ENDPOINT_LIMIT_EXCEEDED", 400)
) {}
/** The URL failed a registration rule; `code` is one of the WEBHOOK_URL_* codes of net/endpointUrl. */
export class EndpointUrlRejected extends Schema.TaggedError<EndpointUrlRejected>()("EndpointUrlRejected", {
  code: Schema.String,
  status: Schema.optionalWith(Schema.Literal(400), { default: () => 400 as const }),
  message: Schema.String
}) {}
export class EventTypeUnknown extends Schema.TaggedError<EventTypeUnknown>()(
  "EventTypeUnknown",
  fields("WEBHOOK_EVENT_TYPE_UNKNOWN", 400)
) {}
/** `rateLimitPerSecond` is neither null nor an integer in 1..10,000 (WEBHOOK_RATE_LIMIT_INVALID, 400). */
export class EndpointRateInvalid extends Schema.TaggedError<EndpointRateInvalid>()(
  "EndpointRateInvalid",
  fields("WEBHOOK_RATE_LIMIT_INVALID", 400)
) {}
/** Several registration rules failed at once: every message, so one answer says everything that is wrong. */
export class EndpointRequestInvalid extends Schema.TaggedError<EndpointRequestInvalid>()("EndpointRequestInvalid", {
  ...fields("VALIDATION_FAILED", 400),
  messages: Schema.Array(Schema.String)
}) {}
/**
 * A switch to Standard Webhooks signing on an endpoint whose secret predates it (base64url, which
 * the specification's libraries do not decode): rotate the secret first (docs/decisions.md).
 */
export class EndpointSecretNeedsRotation extends Schema.TaggedError<EndpointSecretNeedsRotation>()(
  "EndpointSecretNeedsRotation",
  fields("WEBHOOK_SECRET_ROTATION_REQUIRED", 409)
) {}
export class EndpointInactive extends Schema.TaggedError<EndpointInactive>()(
  "EndpointInactive",
  fields("WEBHOOK_ENDPOINT_INACTIVE", 409)
) {}

/** No delivery with that id belongs to the partner (DELIVERY_NOT_FOUND, 404). */
export class DeliveryNotFound extends Schema.TaggedError<DeliveryNotFound>()(
  "DeliveryNotFound",
  fields("DELIVERY_NOT_FOUND", 404)
) {}
/** The delivery is not in a state that may be replayed. */
export class DeliveryNotReplayable extends Schema.TaggedError<DeliveryNotReplayable>()(
  "DeliveryNotReplayable",
  fields("DELIVERY_NOT_REPLAYABLE", 409)
) {}
/** The delivery's endpoint was deleted, so it cannot be replayed. */
export class DeliveryEndpointDeleted extends Schema.TaggedError<DeliveryEndpointDeleted>()(
  "DeliveryEndpointDeleted",
  fields("DELIVERY_ENDPOINT_DELETED", 409)
) {}
/** The delivery's endpoint is paused, so it cannot be replayed now. */
export class DeliveryEndpointInactive extends Schema.TaggedError<DeliveryEndpointInactive>()(
  "DeliveryEndpointInactive",
  fields("DELIVERY_ENDPOINT_INACTIVE", 409)
) {}
export class DeliveryCursorInvalid extends Schema.TaggedError<DeliveryCursorInvalid>()(
  "DeliveryCursorInvalid",
  fields("DELIVERY_CURSOR_INVALID", 400)
) {}

/** A recovery window breaks one or more rules: every message, so one answer says everything that is wrong. */
/**
 * One broken rule of a recovery window with its machine code, for a page that words it in its own
 * language: `days` for RECOVERY_SINCE_TOO_OLD (retention) and RECOVERY_WINDOW_TOO_LONG (the most),
 * `at` for RECOVERY_SINCE_TOO_OLD (the earliest instant kept, ISO 8601).
 */
export const RecoveryIssueSchema = Schema.Struct({
  code: Schema.String,
  days: Schema.optional(Schema.Number),
  at: Schema.optional(Schema.String),
  message: Schema.String
})

/** Every broken rule of a recovery window: `messages` for the API, `issues` with their codes. */
export class RecoveryWindowInvalid extends Schema.TaggedError<RecoveryWindowInvalid>()("RecoveryWindowInvalid", {
  ...fields("VALIDATION_FAILED", 400),
  messages: Schema.Array(Schema.String),
  issues: Schema.optionalWith(Schema.Array(RecoveryIssueSchema), { default: () => [] })
}) {}

export type ReplayError = DeliveryNotFound | DeliveryNotReplayable | DeliveryEndpointDeleted | DeliveryEndpointInactive

/** Why an endpoint's deliveries cannot be recovered (replay's endpoint codes, the same rule). */
export type EndpointReplayError = DeliveryEndpointDeleted | DeliveryEndpointInactive
export type RecoveryError = RecoveryWindowInvalid | EndpointNotFound | EndpointReplayError

/**
 * verifyWebhook for Effect programs: the current time comes from Effect's Clock (so TestClock
 * drives the 300 s tolerance in tests) and a refused delivery is a typed failure that carries
 * the HTTP status a receiver should answer with.
 */
import { Clock, Effect, Schema } from "effect"
import { type VerifiedScheme, type VerifyFailure, type VerifyWebhookInput, verifyWebhook } from "./verifyWebhook.js"

/** What a verified delivery's headers say: scheme, event id, type and timestamp. */
export interface VerifiedWebhook {
  /** The header set that carried the matching signature. */
  readonly scheme: VerifiedScheme
  /**
   * From X-Service-Event-Id, which Frank's signature does NOT cover (see decodeReceivedEvent), or
   * from webhook-id, which the Standard Webhooks signature does.
   */
  readonly eventId: string
  /** From X-Service-Event; null for a Standard Webhooks delivery (the type is in the signed body). */
  readonly eventType: string | null
  readonly timestampSeconds: number
}

/** Why a receiver refuses a delivery: a verification failure, or a signed body it cannot use. */
export const WebhookRejectionReason = Schema.Literal(
  "missing_headers",
  "malformed_timestamp",
  "timestamp_out_of_tolerance",
  "signature_mismatch",
  "malformed_body",
  "header_mismatch"
)
export type WebhookRejectionReason = typeof WebhookRejectionReason.Type

/**
 * 401 when the request is not provably Frank's (bad signature, stale or future timestamp);
 * 400 when it is malformed. Neither is 2xx, so Frank retries a delivery refused by mistake
 * (e.g. a receiver clock far off) on its schedule instead of losing it.
 */
export const rejectionStatus = (reason: WebhookRejectionReason): 400 | 401 =>
  reason === "signature_mismatch" || reason === "timestamp_out_of_tolerance" ? 401 : 400

/** A delivery failed verification; `status` is the answer to send (400 or 401). */
export class WebhookRejected extends Schema.TaggedError<WebhookRejected>()("WebhookRejected", {
  reason: WebhookRejectionReason,
  status: Schema.Literal(400, 401),
  message: Schema.String
}) {}

export const webhookRejected = (reason: WebhookRejectionReason, message: string = reason): WebhookRejected =>
  new WebhookRejected({ reason, status: rejectionStatus(reason), message })

// Exhaustive over VerifyFailure: a new failure added to verifyWebhook must be described here.
const describe: { readonly [K in VerifyFailure]: string } = {
  missing_headers: "signature, timestamp, event or event id header missing",
  malformed_timestamp: "the timestamp header is not unix seconds",
  timestamp_out_of_tolerance: "timestamp too far from the receiver's clock",
  signature_mismatch: "no signature header matches any accepted secret"
}

/** Verifies a delivery's signature and timestamp on Effect's Clock; fails with WebhookRejected. */
export const verifyWebhookEffect = (
  input: Omit<VerifyWebhookInput, "now">
): Effect.Effect<VerifiedWebhook, WebhookRejected> =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    // verifyWebhook rejects only if Web Crypto itself is broken: a defect, not a refusal.
    const result = yield* Effect.promise(() => verifyWebhook({ ...input, now }))
    if (!result.ok) return yield* webhookRejected(result.reason, describe[result.reason])
    return {
      scheme: result.scheme,
      eventId: result.eventId,
      eventType: result.eventType,
      timestampSeconds: result.timestampSeconds
    }
  })

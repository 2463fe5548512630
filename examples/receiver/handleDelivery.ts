/**
 * One webhook delivery, from raw bytes to the HTTP answer, with the receiver kit of @frank/core:
 *
 *   verify signature + timestamp  →  decode the signed body  →  consumeOnce(eventId, action)
 *
 * Either signature scheme an endpoint can use verifies: Frank's X-Service-* headers, or the
 * Standard Webhooks ones (`webhook-id`, `webhook-timestamp`, `webhook-signature`).
 *
 * Answers: 200 for a processed event and for a duplicate (both stop Frank's retries); 401 when
 * the request is not provably Frank's; 400 when it is malformed; 500 when the action or the dedup
 * store failed, so Frank delivers the event again later.
 */
import { WebhookReceiver } from "@frank/core"
import { Cause, Effect, Either } from "effect"

export interface Reply {
  readonly status: number
  readonly body: Readonly<Record<string, unknown>>
}

export interface Delivery {
  readonly headers: WebhookReceiver.VerifyWebhookInput["headers"]
  /** Exactly the bytes received: parsing and re-serializing JSON would change what was signed. */
  readonly rawBody: Uint8Array
}

/** Signature, timestamp and body; only then is anything in the request trusted. */
export const authenticate = (
  secrets: ReadonlyArray<string>,
  delivery: Delivery
): Effect.Effect<WebhookReceiver.ReceivedEvent, WebhookReceiver.WebhookRejected> =>
  Effect.flatMap(
    WebhookReceiver.verifyWebhookEffect({ secret: secrets, headers: delivery.headers, rawBody: delivery.rawBody }),
    (verified) =>
      // Dedup on the eventId inside the signed body; the header alone is not covered by the signature.
      WebhookReceiver.decodeReceivedEvent(delivery.rawBody, verified)
  )

/** The answer to a request that is not provably Frank's (401) or is malformed (400). */
export const rejectionReply = (rejected: WebhookReceiver.WebhookRejected): Reply => ({
  status: rejected.status,
  body: { error: rejected.reason, message: rejected.message }
})

export const handleDelivery = <E, R>(
  secrets: ReadonlyArray<string>,
  delivery: Delivery,
  /** The business action. Keep it well under Frank's 10 s receiver timeout. */
  action: (event: WebhookReceiver.ReceivedEvent) => Effect.Effect<void, E, R>
): Effect.Effect<Reply, never, R | WebhookReceiver.ProcessedEvents> =>
  Effect.gen(function* () {
    const checked = yield* Effect.either(authenticate(secrets, delivery))
    if (Either.isLeft(checked)) return rejectionReply(checked.left)
    const event = checked.right
    const result = yield* WebhookReceiver.consumeOnce(event.eventId, action(event))
    return { status: 200, body: { eventId: event.eventId, result: result._tag } }
  }).pipe(
    // Everything else (action failed, store failed, defects): not 2xx, so Frank retries.
    Effect.catchAllCause((cause) =>
      Effect.sync((): Reply => {
        console.error(JSON.stringify({ msg: "delivery failed", cause: Cause.pretty(cause) }))
        return { status: 500, body: { error: "internal" } }
      })
    )
  )

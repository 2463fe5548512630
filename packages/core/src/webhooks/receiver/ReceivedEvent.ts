/**
 * The body of a delivery (spec "Body envelope"), decoded only after its signature was verified.
 *
 * Frank's signature covers `<timestamp>.<raw body>` and no header, so the X-Service-Event-Id
 * header is not authenticated: anyone replaying a captured delivery inside the 300 s window could
 * put a fresh id in it and get the business action run again. Deduplicate on the signed body's
 * eventId; a header that disagrees with the body is refused. (The Standard Webhooks signature
 * covers webhook-id, which Frank sets to the event id: it must agree with the body too.)
 */
import { Effect, Schema } from "effect"
import { type VerifiedWebhook, webhookRejected, type WebhookRejected } from "./verifyWebhookEffect.js"

/** A delivered event as a receiver decodes it. */
export const ReceivedEvent = Schema.Struct({
  eventId: Schema.String.pipe(Schema.minLength(1)),
  // Any string, not the EventType literals: a receiver built today must not refuse (and so make
  // Frank retry for 8 h) an event type added later.
  eventType: Schema.String,
  occurredAt: Schema.String,
  partnerId: Schema.String,
  schemaVersion: Schema.Int,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type ReceivedEvent = typeof ReceivedEvent.Type

const decodeJson = Schema.decodeUnknown(Schema.parseJson(ReceivedEvent))

const utf8 = (rawBody: Uint8Array | string) =>
  typeof rawBody === "string"
    ? Effect.succeed(rawBody)
    : Effect.try({
        try: () => new TextDecoder("utf-8", { fatal: true }).decode(rawBody),
        catch: () => webhookRejected("malformed_body", "body is not UTF-8")
      })

/** Parses a verified delivery's body; refuses a header event id that differs from the signed body. */
export const decodeReceivedEvent = (
  rawBody: Uint8Array | string,
  verified: VerifiedWebhook
): Effect.Effect<ReceivedEvent, WebhookRejected> =>
  Effect.gen(function* () {
    const text = yield* utf8(rawBody)
    const event = yield* decodeJson(text).pipe(Effect.mapError((e) => webhookRejected("malformed_body", e.message)))
    if (event.eventId !== verified.eventId || (verified.eventType !== null && event.eventType !== verified.eventType))
      return yield* webhookRejected("header_mismatch", "the event id or event type header differs from the signed body")
    return event
  })

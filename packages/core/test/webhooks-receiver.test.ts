/**
 * The Effect side of the receiver kit in core: verification driven by Effect's Clock, and the
 * signed body decoded and checked against the unsigned headers.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { decodeReceivedEvent } from "../src/webhooks/receiver/ReceivedEvent.js"
import { sign } from "../src/webhooks/signing/signature.js"
import { signStandard } from "../src/webhooks/signing/standardSignature.js"
import { verifyWebhookEffect, WebhookRejected } from "../src/webhooks/receiver/verifyWebhookEffect.js"

const secret = "whsec_current"
const ts = 1_800_000_000
const envelope = {
  eventId: "0b7c6a52-8f0e-4c31-9d7a-2f1b9c2c1a01",
  eventType: "billing.settled",
  occurredAt: "2027-01-15T08:00:00.000Z",
  partnerId: "p_1",
  schemaVersion: 1,
  data: { transactionId: "t1", amountFranks: 12.5 }
}
const body = JSON.stringify(envelope)

const headersFor = (rawBody: string, over: Record<string, string> = {}) =>
  Effect.promise(async () => ({
    "x-service-event": envelope.eventType,
    "x-service-event-id": envelope.eventId,
    "x-service-timestamp": String(ts),
    "x-service-signature": await sign(secret, ts, rawBody),
    ...over
  }))

describe("verifyWebhookEffect", () => {
  it.effect("takes now from the Clock: accepted within 300 s, refused with 401 after", () =>
    Effect.gen(function* () {
      const headers = yield* headersFor(body)
      yield* TestClock.setTime(ts * 1000 + 300_000)
      expect(yield* verifyWebhookEffect({ secret, headers, rawBody: body })).toEqual({
        scheme: "frank",
        eventId: envelope.eventId,
        eventType: "billing.settled",
        timestampSeconds: ts
      })
      yield* TestClock.adjust("1 second")
      const stale = yield* Effect.flip(verifyWebhookEffect({ secret, headers, rawBody: body }))
      expect(stale).toBeInstanceOf(WebhookRejected)
      expect(stale).toMatchObject({ reason: "timestamp_out_of_tolerance", status: 401 })
    })
  )

  it.effect("maps each refusal to its status: bad signature 401, malformed request 400", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(ts * 1000)
      const headers = yield* headersFor(body)
      const refuse = (h: Record<string, string>, rawBody = body) =>
        Effect.flip(verifyWebhookEffect({ secret, headers: h, rawBody }))
      expect(yield* refuse(headers, body.replace("12.5", "13.5"))).toMatchObject({
        reason: "signature_mismatch",
        status: 401
      })
      expect(yield* refuse({ ...headers, "x-service-timestamp": "soon" })).toMatchObject({
        reason: "malformed_timestamp",
        status: 400
      })
      expect(yield* refuse({})).toMatchObject({ reason: "missing_headers", status: 400 })
    })
  )
})

describe("verifyWebhookEffect on a Standard Webhooks delivery", () => {
  it.effect("verifies webhook-signature with the whsec_ secret's decoded key and reports the scheme", () =>
    Effect.gen(function* () {
      const standardSecret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`
      yield* TestClock.setTime(ts * 1000)
      const signature = yield* Effect.promise(() => signStandard(standardSecret, envelope.eventId, ts, body))
      const headers = {
        "webhook-id": envelope.eventId,
        "webhook-timestamp": String(ts),
        "webhook-signature": signature
      }
      expect(yield* verifyWebhookEffect({ secret: standardSecret, headers, rawBody: body })).toEqual({
        scheme: "standard-webhooks",
        eventId: envelope.eventId,
        eventType: null,
        timestampSeconds: ts
      })
      // webhook-id is signed: another id in the header is a mismatch, not a fresh event.
      const forged = yield* Effect.flip(
        verifyWebhookEffect({ secret: standardSecret, headers: { ...headers, "webhook-id": "fresh" }, rawBody: body })
      )
      expect(forged).toMatchObject({ reason: "signature_mismatch", status: 401 })
    })
  )
})

describe("decodeReceivedEvent", () => {
  const verified = {
    scheme: "frank" as const,
    eventId: envelope.eventId,
    eventType: envelope.eventType as string | null,
    timestampSeconds: ts
  }

  it.effect("decodes the envelope from bytes or text", () =>
    Effect.gen(function* () {
      expect(yield* decodeReceivedEvent(new TextEncoder().encode(body), verified)).toEqual(envelope)
      expect(yield* decodeReceivedEvent(body, verified)).toEqual(envelope)
    })
  )

  it.effect("refuses an event id or type header that differs from the signed body (400)", () =>
    Effect.gen(function* () {
      const otherId = yield* Effect.flip(decodeReceivedEvent(body, { ...verified, eventId: "forged-fresh-id" }))
      expect(otherId).toMatchObject({ reason: "header_mismatch", status: 400 })
      const otherType = yield* Effect.flip(decodeReceivedEvent(body, { ...verified, eventType: "task.failed" }))
      expect(otherType).toMatchObject({ reason: "header_mismatch", status: 400 })
    })
  )

  it.effect(
    "a Standard Webhooks delivery has no type header: the body's type stands, its id must match webhook-id",
    () =>
      Effect.gen(function* () {
        const standard = { ...verified, scheme: "standard-webhooks" as const, eventType: null }
        expect(yield* decodeReceivedEvent(body, standard)).toEqual(envelope)
        const otherId = yield* Effect.flip(decodeReceivedEvent(body, { ...standard, eventId: "another-message" }))
        expect(otherId).toMatchObject({ reason: "header_mismatch", status: 400 })
      })
  )

  it.effect("refuses bodies that are not the envelope: bad JSON, missing fields, invalid UTF-8", () =>
    Effect.gen(function* () {
      const bad = (raw: string | Uint8Array) =>
        Effect.map(Effect.flip(decodeReceivedEvent(raw, verified)), (e) => [e.reason, e.status])
      expect(yield* bad("{not json")).toEqual(["malformed_body", 400])
      expect(yield* bad(JSON.stringify({ ...envelope, eventId: 7 }))).toEqual(["malformed_body", 400])
      const { data: _data, ...withoutData } = envelope
      expect(yield* bad(JSON.stringify(withoutData))).toEqual(["malformed_body", 400])
      expect(yield* bad(new Uint8Array([0x7b, 0xff, 0x7d]))).toEqual(["malformed_body", 400])
    })
  )

  it.effect("accepts event types it does not know, so a newer Frank is not refused", () =>
    Effect.gen(function* () {
      const future = JSON.stringify({ ...envelope, eventType: "billing.something_new" })
      const r = yield* decodeReceivedEvent(future, { ...verified, eventType: "billing.something_new" })
      expect(r.eventType).toBe("billing.something_new")
    })
  )
})

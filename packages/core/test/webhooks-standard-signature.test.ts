/**
 * Standard Webhooks signatures in core (Web Crypto): the bytes the specification's own library
 * computes, which secrets its libraries accept as they are, and the receiver kit verifying the
 * `webhook-*` headers.
 */
import { describe, expect, it, vi } from "@effect/vitest"
import fc from "fast-check"
import { Webhook } from "standardwebhooks"
import {
  isStandardSecret,
  signStandard,
  standardKeyBytes,
  STANDARD_SECRET_MAX_BYTES,
  STANDARD_SECRET_MIN_BYTES
} from "../src/webhooks/signing/standardSignature.js"
import { sign } from "../src/webhooks/signing/signature.js"
import { verifyWebhook } from "../src/webhooks/receiver/verifyWebhook.js"

const secretOf = (bytes: Uint8Array) => `whsec_${Buffer.from(bytes).toString("base64")}`
const secret = secretOf(new Uint8Array(32).fill(1))
const previous = secretOf(new Uint8Array(32).fill(2))
const msgId = "0b7c6a52-8f0e-4c31-9d7a-2f1b9c2c1a01"
const body = JSON.stringify({ eventId: msgId, eventType: "billing.settled", data: { amountFranks: 12.5 } })
const now = 1_800_000_000_000
const ts = now / 1000

/** What the specification's reference library signs, at `timestampSeconds`. */
const librarySign = (s: string, id: string, timestampSeconds: number, payload: string) =>
  new Webhook(s).sign(id, new Date(timestampSeconds * 1000), payload)

const headers = async (over: Record<string, string> = {}) => ({
  "webhook-id": msgId,
  "webhook-timestamp": String(ts),
  "webhook-signature": await signStandard(secret, msgId, ts, body),
  ...over
})

describe("signStandard", () => {
  it("computes what the standardwebhooks library computes, for any key length it allows and any body", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: STANDARD_SECRET_MIN_BYTES, maxLength: STANDARD_SECRET_MAX_BYTES }),
        fc.string(),
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 4_102_444_800 }),
        async (key, payload, id, timestamp) => {
          const s = secretOf(key)
          expect(isStandardSecret(s)).toBe(true)
          expect(await signStandard(s, id, timestamp, payload)).toBe(librarySign(s, id, timestamp, payload))
        }
      ),
      { numRuns: 200 }
    )
  })

  it("signs bytes and text alike, and a different key, id, time or body changes the signature", async () => {
    const base = await signStandard(secret, msgId, ts, body)
    expect(base).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
    expect(await signStandard(secret, msgId, ts, new TextEncoder().encode(body))).toBe(base)
    for (const other of [
      signStandard(previous, msgId, ts, body),
      signStandard(secret, "another", ts, body),
      signStandard(secret, msgId, ts + 1, body),
      signStandard(secret, msgId, ts, `${body} `)
    ])
      expect(await other).not.toBe(base)
  })

  it("uses the decoded key, unlike Frank's scheme which keys with the secret's text", async () => {
    expect(standardKeyBytes(secret)).toEqual(new Uint8Array(32).fill(1))
    expect(await sign(secret, ts, body)).not.toContain((await signStandard(secret, msgId, ts, body)).slice(3))
  })
})

describe("secret formats", () => {
  it("new secrets are what the libraries decode; the older base64url ones are not", () => {
    for (const n of [24, 32, 48, 64]) expect(isStandardSecret(secretOf(new Uint8Array(n).fill(255))), `${n}`).toBe(true)
    const legacy = `whsec_${Buffer.from(new Uint8Array(32).fill(251)).toString("base64url")}`
    expect(legacy).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
    expect(isStandardSecret(legacy)).toBe(false)
    for (const bad of [
      secretOf(new Uint8Array(23)),
      secretOf(new Uint8Array(65)),
      secret.slice("whsec_".length),
      `whsk_${secret.slice(6)}`,
      `${secret.slice(0, -1)}`,
      "whsec_not base64 at all=="
    ])
      expect(isStandardSecret(bad), bad).toBe(false)
  })

  it("the key of an older base64url secret is its bytes, so Frank can still sign with it", () => {
    const bytes = Uint8Array.from({ length: 32 }, (_, i) => 255 - i * 3)
    expect(standardKeyBytes(`whsec_${Buffer.from(bytes).toString("base64url")}`)).toEqual(bytes)
    expect(() => standardKeyBytes("whsec_a")).toThrow(/not base64/)
    expect(() => standardKeyBytes("whsec_ab$d")).toThrow(/not base64/)
  })
})

describe("verifyWebhook on Standard Webhooks headers", () => {
  it("accepts what the library signs and reports the scheme; the type is left to the body", async () => {
    const h = await headers({ "webhook-signature": librarySign(secret, msgId, ts, body) })
    expect(await verifyWebhook({ secret, headers: h, rawBody: body, now })).toEqual({
      ok: true,
      scheme: "standard-webhooks",
      eventId: msgId,
      eventType: null,
      timestampSeconds: ts
    })
  })

  it("accepts either signature of a rotation, skips other versions, refuses all else", async () => {
    const both = `${await signStandard(secret, msgId, ts, body)} ${await signStandard(previous, msgId, ts, body)}`
    for (const s of [secret, previous, [secretOf(new Uint8Array(32)), previous]])
      expect(
        (await verifyWebhook({ secret: s, headers: await headers({ "webhook-signature": both }), rawBody: body, now }))
          .ok
      ).toBe(true)
    const refused = async (over: Record<string, string>, s: string = secret, raw = body) =>
      (await verifyWebhook({ secret: s, headers: await headers(over), rawBody: raw, now })).ok === false
    expect(await refused({}, previous)).toBe(true)
    expect(await refused({}, secret, body.replace("12.5", "13.5"))).toBe(true)
    // The id is signed: a captured delivery with a fresh id is not a new event.
    expect(await refused({ "webhook-id": "fresh" })).toBe(true)
    const v1 = await signStandard(secret, msgId, ts, body)
    expect(await refused({ "webhook-signature": `v1a,${v1.slice(3)}` })).toBe(true)
    expect(await refused({ "webhook-signature": v1.slice(3) })).toBe(true)
    expect(await refused({ "webhook-signature": `v1a,xyz ${v1}` })).toBe(false)
  })

  it("applies the 300 s window, and reports missing and malformed headers", async () => {
    for (const [offset, ok] of [
      [-301, false],
      [301, false],
      [300, true]
    ] as const) {
      const t = ts + offset
      const h = await headers({
        "webhook-timestamp": String(t),
        "webhook-signature": await signStandard(secret, msgId, t, body)
      })
      expect((await verifyWebhook({ secret, headers: h, rawBody: body, now })).ok, `${offset}`).toBe(ok)
    }
    const full = await headers()
    for (const name of ["webhook-id", "webhook-timestamp"] as const) {
      const { [name]: _dropped, ...rest } = full
      expect(await verifyWebhook({ secret, headers: rest, rawBody: body, now })).toEqual({
        ok: false,
        reason: "missing_headers"
      })
    }
    expect(
      await verifyWebhook({ secret, headers: { ...full, "webhook-signature": "v1a,abc" }, rawBody: body, now })
    ).toEqual({ ok: false, reason: "missing_headers" })
    expect(
      await verifyWebhook({ secret, headers: { ...full, "webhook-timestamp": "soon" }, rawBody: body, now })
    ).toEqual({ ok: false, reason: "malformed_timestamp" })
  })

  it("a secret that is not base64 matches nothing instead of throwing", async () => {
    expect(await verifyWebhook({ secret: "whsec_$$$", headers: await headers(), rawBody: body, now })).toEqual({
      ok: false,
      reason: "signature_mismatch"
    })
  })

  it("on a delivery with both header sets, checks Frank's unless told which", async () => {
    const h = {
      ...(await headers()),
      "X-Service-Event": "billing.settled",
      "X-Service-Event-Id": msgId,
      "X-Service-Timestamp": String(ts),
      "X-Service-Signature": "sha256=00"
    }
    expect(await verifyWebhook({ secret, headers: h, rawBody: body, now })).toEqual({
      ok: false,
      reason: "signature_mismatch"
    })
    expect(await verifyWebhook({ secret, headers: h, rawBody: body, now, scheme: "standard-webhooks" })).toMatchObject({
      ok: true,
      scheme: "standard-webhooks"
    })
  })

  it("agrees with the library's verify at the library's own clock", async () => {
    vi.setSystemTime(now)
    try {
      const h = await headers()
      expect(() => new Webhook(secret).verify(body, h)).not.toThrow()
      expect((await verifyWebhook({ secret, headers: h, rawBody: body, now: Date.now() })).ok).toBe(true)
    } finally {
      vi.useRealTimers()
    }
  })
})

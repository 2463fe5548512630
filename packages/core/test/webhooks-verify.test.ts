import { describe, expect, it } from "@effect/vitest"
import { sign } from "../src/webhooks/signing/signature.js"
import { verifyWebhook } from "../src/webhooks/receiver/verifyWebhook.js"

const secret = "whsec_current"
const previous = "whsec_previous"
const body = JSON.stringify({ eventId: "e1", eventType: "billing.settled", data: { amountFranks: 12.5 } })
const now = 1_800_000_000_000
const ts = now / 1000

const headers = async (opts: { sig?: string; prev?: string; timestamp?: number } = {}) => ({
  "X-Service-Event": "billing.settled",
  "X-Service-Event-Id": "e1",
  "X-Service-Timestamp": String(opts.timestamp ?? ts),
  "X-Service-Signature": opts.sig ?? (await sign(secret, opts.timestamp ?? ts, body)),
  ...(opts.prev === undefined ? {} : { "X-Service-Signature-Previous": opts.prev })
})

describe("verifyWebhook", () => {
  it("accepts a valid signature and known test vector", async () => {
    // HMAC-SHA256("whsec_current", "1800000000.{body}") computed independently with openssl.
    expect(await sign(secret, ts, body)).toBe("sha256=9631b3c7d85c53de9866033b205caa6ac84347a830219262c007816d3ebe529f")
    expect(await verifyWebhook({ secret, headers: await headers(), rawBody: body, now })).toMatchObject({
      ok: true,
      eventId: "e1"
    })
  })

  it("rejects a tampered body and a wrong secret", async () => {
    const h = await headers()
    expect(await verifyWebhook({ secret, headers: h, rawBody: body.replace("12.5", "125"), now })).toEqual({
      ok: false,
      reason: "signature_mismatch"
    })
    expect(await verifyWebhook({ secret: "whsec_other", headers: h, rawBody: body, now })).toEqual({
      ok: false,
      reason: "signature_mismatch"
    })
    // A misconfigured receiver (empty secret) gets an answer, not a rejected promise.
    expect(await verifyWebhook({ secret: "", headers: h, rawBody: body, now })).toEqual({
      ok: false,
      reason: "signature_mismatch"
    })
  })

  it("rejects stale and future timestamps beyond 300 s, accepts at the edge", async () => {
    for (const [offset, ok] of [
      [-301, false],
      [301, false],
      [-300, true],
      [300, true]
    ] as const) {
      const t = ts + offset
      const r = await verifyWebhook({ secret, headers: await headers({ timestamp: t }), rawBody: body, now })
      expect(r.ok, `offset ${offset}`).toBe(ok)
    }
  })

  it("accepts the previous-secret header when the receiver still holds only the old secret", async () => {
    const h = await headers({ sig: await sign(secret, ts, body), prev: await sign(previous, ts, body) })
    expect((await verifyWebhook({ secret: previous, headers: h, rawBody: body, now })).ok).toBe(true)
    expect((await verifyWebhook({ secret: [secret, previous], headers: h, rawBody: body, now })).ok).toBe(true)
    expect((await verifyWebhook({ secret: "whsec_x", headers: h, rawBody: body, now })).ok).toBe(false)
  })

  it("reports missing headers and malformed timestamps", async () => {
    expect(await verifyWebhook({ secret, headers: {}, rawBody: body, now })).toEqual({
      ok: false,
      reason: "missing_headers"
    })
    const h = { ...(await headers()), "X-Service-Timestamp": "12e3" }
    expect(await verifyWebhook({ secret, headers: h, rawBody: body, now })).toEqual({
      ok: false,
      reason: "malformed_timestamp"
    })
  })
})

describe("verifyWebhook: header cases", () => {
  it("accepts a delivery valid only in X-Service-Signature-Previous (rotation, receiver on the old secret)", async () => {
    const h = await headers({ sig: "sha256=deadbeef", prev: await sign(previous, ts, body) })
    expect(await verifyWebhook({ secret: previous, headers: h, rawBody: body, now })).toMatchObject({
      ok: true,
      eventId: "e1"
    })
  })

  it("accepts when both headers are present and only one matches the receiver's secret", async () => {
    const h = await headers({ sig: await sign(secret, ts, body), prev: await sign(previous, ts, body) })
    // Receiver already on the new secret: only X-Service-Signature matches.
    expect((await verifyWebhook({ secret, headers: h, rawBody: body, now })).ok).toBe(true)
    // A forged primary next to a genuine previous still passes; a forged previous next to a genuine primary too.
    const forgedPrimary = { ...h, "X-Service-Signature": await sign("whsec_attacker", ts, body) }
    expect((await verifyWebhook({ secret: previous, headers: forgedPrimary, rawBody: body, now })).ok).toBe(true)
    const forgedPrevious = { ...h, "X-Service-Signature-Previous": "sha256=00" }
    expect((await verifyWebhook({ secret, headers: forgedPrevious, rawBody: body, now })).ok).toBe(true)
    // Neither matches: refused.
    expect(await verifyWebhook({ secret: "whsec_x", headers: forgedPrevious, rawBody: body, now })).toEqual({
      ok: false,
      reason: "signature_mismatch"
    })
  })

  it("needs the sha256= prefix and lower-case hex exactly as sent", async () => {
    const good = await sign(secret, ts, body)
    for (const sig of [good.slice("sha256=".length), good.toUpperCase(), `${good}0`, good.slice(0, -1)]) {
      expect((await verifyWebhook({ secret, headers: await headers({ sig }), rawBody: body, now })).ok, sig).toBe(false)
    }
  })

  it("verifies raw body bytes the same as the string, and reads a Headers object", async () => {
    const h = new Headers(await headers())
    expect((await verifyWebhook({ secret, headers: h, rawBody: new TextEncoder().encode(body), now })).ok).toBe(true)
    // One changed byte in the raw bytes is a mismatch.
    const bytes = new TextEncoder().encode(body)
    bytes[bytes.length - 2] = bytes[bytes.length - 2]! ^ 1
    expect(await verifyWebhook({ secret, headers: h, rawBody: bytes, now })).toEqual({
      ok: false,
      reason: "signature_mismatch"
    })
  })

  it("reports each missing or empty required header as missing_headers", async () => {
    const full = await headers()
    for (const name of [
      "X-Service-Event",
      "X-Service-Event-Id",
      "X-Service-Timestamp",
      "X-Service-Signature"
    ] as const) {
      const { [name]: _dropped, ...rest } = full
      expect(await verifyWebhook({ secret, headers: rest, rawBody: body, now }), `without ${name}`).toEqual({
        ok: false,
        reason: "missing_headers"
      })
      expect(
        await verifyWebhook({ secret, headers: { ...full, [name]: "" }, rawBody: body, now }),
        `empty ${name}`
      ).toEqual({
        ok: false,
        reason: "missing_headers"
      })
    }
  })

  it("reports timestamps that are not plain unix seconds as malformed", async () => {
    for (const t of ["12e3", "-5", "1800000000.5", " 1800000000", "1800000000000000", "0x6b49d200", "now"]) {
      const h = { ...(await headers()), "X-Service-Timestamp": t }
      expect(await verifyWebhook({ secret, headers: h, rawBody: body, now }), t).toEqual({
        ok: false,
        reason: "malformed_timestamp"
      })
    }
  })
})

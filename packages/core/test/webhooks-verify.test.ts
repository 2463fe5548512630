import { describe, expect, it } from "@effect/vitest"
import { sign } from "../src/webhooks/signature.js"
import { verifyWebhook } from "../src/webhooks/verifyWebhook.js"

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
    expect(await verifyWebhook({ secret, headers: await headers(), rawBody: body, now })).toMatchObject({ ok: true, eventId: "e1" })
  })

  it("rejects a tampered body and a wrong secret", async () => {
    const h = await headers()
    expect(await verifyWebhook({ secret, headers: h, rawBody: body.replace("12.5", "125"), now })).toEqual({ ok: false, reason: "signature_mismatch" })
    expect(await verifyWebhook({ secret: "whsec_other", headers: h, rawBody: body, now })).toEqual({ ok: false, reason: "signature_mismatch" })
  })

  it("rejects stale and future timestamps beyond 300 s, accepts at the edge", async () => {
    for (const [offset, ok] of [[-301, false], [301, false], [-300, true], [300, true]] as const) {
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
    expect(await verifyWebhook({ secret, headers: {}, rawBody: body, now })).toEqual({ ok: false, reason: "missing_headers" })
    const h = { ...(await headers()), "X-Service-Timestamp": "12e3" }
    expect(await verifyWebhook({ secret, headers: h, rawBody: body, now })).toEqual({ ok: false, reason: "malformed_timestamp" })
  })
})

/**
 * Webhooks end to end: the real host process (embedded PGlite) spoken to over HTTP, and real
 * receivers on loopback (FRANK_ALLOW_PRIVATE_NETWORK=true) that record the raw bytes and headers
 * they are sent. Time-based behaviour (retry schedule, rotation window, low-balance interval) is
 * reached with the sandbox clock (FRANK_SANDBOX_CLOCK=true); every wait polls with a deadline.
 *
 * Each test's client requests come from an address of their own (FRANK_TRUST_PROXY=true and
 * X-Forwarded-For), so the spec's per-IP limits of one test never count against another's.
 *
 * Process deaths (SIGKILL mid-request → uncertain, SIGTERM drains) are in webhooks-crash.e2e.test.ts.
 * At the end, with DATABASE_URL only: two hosts sharing one PostgreSQL database.
 */
import { randomUUID } from "node:crypto"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@effect/vitest"
import { WebhookReceiver } from "@frank/core"
import pg from "pg"
import {
  adminCredit,
  advanceClock,
  envelopeOf,
  freshIp,
  hostNow,
  keyHeaders,
  issueKey,
  newPartner,
  type Partner,
  type ReceivedRequest,
  type Receiver,
  startReceiver,
  waitFor
} from "./hostClient.js"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"

const ENV = { FRANK_ALLOW_PRIVATE_NETWORK: "true", FRANK_SANDBOX_CLOCK: "true", FRANK_TRUST_PROXY: "true" }
const MINUTE = 60

interface Delivery {
  readonly id: string
  readonly endpointId: string
  readonly eventId: string
  readonly eventType: string
  readonly status: string
  readonly attempts: number
  readonly responseCodes: Array<number | null>
  readonly lastError: string | null
  readonly nextAttemptAt: string | null
  readonly createdAt: string
}

let host: RunningHost
const receivers: Array<Receiver> = []

beforeAll(async () => {
  host = await spawnHost(ENV)
}, 120_000)

afterAll(async () => {
  for (const r of receivers) await r.close()
  const code = await host?.stop()
  expect(code).toBe(0)
}, 60_000)

/** A receiver closed when the file ends. */
const receiver = async (...args: Parameters<typeof startReceiver>) => {
  const r = await startReceiver(...args)
  receivers.push(r)
  return r
}

/** Endpoints a test leaves behind are deleted after it, so later clock advances retry nothing of it. */
const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

const createEndpoint = async (p: Partner, body: { url: string; eventTypes?: Array<string> }) => {
  const e = await call(host, "POST", "/v1/webhooks/endpoints", { headers: p.key, body })
  expect(e.status, e.text).toBe(201)
  cleanups.push(() => call(host, "DELETE", `/v1/webhooks/endpoints/${e.json.id}`, { headers: p.key }))
  return { id: e.json.id as string, secret: e.json.secret as string, view: e.json }
}

const sendTest = async (p: Partner, endpointId: string) => {
  const t = await call(host, "POST", `/v1/webhooks/endpoints/${endpointId}/test`, { headers: p.key })
  expect(t.status, t.text).toBe(200)
  expect(t.json).toMatchObject({ endpointId, eventType: "webhook.test" })
  return t.json.eventId as string
}

const deliveries = async (p: Partner, query = "", headers = p.monitor) => {
  const r = await call(host, "GET", `/v1/webhooks/deliveries${query}`, { headers })
  expect(r.status, r.text).toBe(200)
  return r.json as { deliveries: Array<Delivery>; nextCursor: string | null; shown: number }
}

/** Polls the delivery log until the delivery of `eventId` satisfies `ready`. */
const deliveryOf = (p: Partner, eventId: string, ready: (d: Delivery) => boolean, what = "the delivery") =>
  waitFor(`${what} of event ${eventId}`, async () => {
    const d = (await deliveries(p, "?limit=100")).deliveries.find((x) => x.eventId === eventId)
    return d !== undefined && ready(d) ? d : undefined
  })

const replay = (p: Partner, deliveryId: string) =>
  call(host, "POST", `/v1/webhooks/deliveries/${deliveryId}/replay`, { headers: p.key })

/** The host's /metrics text and its webhook attempt counters as `result/answer` → count. */
const attemptCounters = async () => {
  const text = (await call(host, "GET", "/metrics")).text
  const counts: Record<string, number> = {}
  for (const m of text.matchAll(/^frank_webhook_attempts_total\{result="(\w+)",answer="(\w+)"\} (\d+)$/gm))
    counts[`${m[1]}/${m[2]}`] = Number(m[3])
  return { text, counts }
}

/** Verifies a received request with `secret` at the host's current time. */
const verify = async (
  r: ReceivedRequest,
  secret: string | Array<string>,
  headers: ReceivedRequest["headers"] = r.headers
) => WebhookReceiver.verifyWebhook({ secret, headers, rawBody: r.body, now: await hostNow(host) })

/** The request's headers without one of them. */
const without = (r: ReceivedRequest, name: string) =>
  Object.fromEntries(Object.entries(r.headers).filter(([k]) => k !== name))

const timestampMs = (r: ReceivedRequest) => Number(r.headers["x-service-timestamp"]) * 1000

/**
 * The next attempt is scheduled `delayMs` after the start of the attempt `r` recorded; the
 * request's timestamp is that start in whole seconds.
 */
const expectScheduled = (d: Delivery, r: ReceivedRequest, delayMs: number) => {
  expect(d.nextAttemptAt).not.toBeNull()
  const gap = Date.parse(d.nextAttemptAt as string) - timestampMs(r)
  expect(gap).toBeGreaterThanOrEqual(delayMs)
  expect(gap).toBeLessThan(delayMs + 1_000)
}

describe("webhooks end to end", { timeout: 180_000 }, () => {
  it("registers an endpoint (secret once), and a test event arrives signed over the raw bytes", async () => {
    const p = await newPartner(host, "Hooks LLC")
    const rx = await receiver()
    const created = await createEndpoint(p, { url: rx.url })
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(created.view).toMatchObject({
      url: rx.url,
      active: true,
      subscribedToAll: true,
      previousSecretValidUntil: null
    })
    expect(created.view.eventTypes).toContain("billing.settled")

    // The secret is never listed again.
    const list = await call(host, "GET", "/v1/webhooks/endpoints", { headers: p.monitor })
    expect(list.status).toBe(200)
    expect(list.json.items).toHaveLength(1)
    expect(list.json.items[0]).toMatchObject({ id: created.id, url: rx.url, active: true })
    expect(list.json.items[0]).not.toHaveProperty("secret")
    expect(list.text).not.toContain(created.secret)

    const eventId = await sendTest(p, created.id)
    const r = await rx.nth(1)
    expect(r.method).toBe("POST")
    expect(r.path).toBe("/hook")
    expect(r.headers["content-type"]).toBe("application/json")
    expect(r.headers["x-service-event"]).toBe("webhook.test")
    expect(r.headers["x-service-event-id"]).toBe(eventId)
    expect(r.headers["x-service-timestamp"]).toMatch(/^\d+$/)
    expect(r.headers["x-service-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/)
    expect(r.headers["x-service-signature-previous"]).toBeUndefined()
    expect(Math.abs(timestampMs(r) - (await hostNow(host)))).toBeLessThan(300_000)

    const verified = await verify(r, created.secret)
    expect(verified).toEqual({
      ok: true,
      scheme: "frank",
      eventId,
      eventType: "webhook.test",
      timestampSeconds: Number(r.headers["x-service-timestamp"])
    })
    // The signature covers exactly these bytes with exactly this secret.
    expect((await verify(r, `${created.secret}x`)).ok).toBe(false)
    const tampered = Buffer.concat([r.body, Buffer.from(" ")])
    expect(
      await WebhookReceiver.verifyWebhook({
        secret: created.secret,
        headers: r.headers,
        rawBody: tampered,
        now: timestampMs(r)
      })
    ).toEqual({
      ok: false,
      reason: "signature_mismatch"
    })

    const envelope = envelopeOf(r)
    expect(Object.keys(envelope).sort()).toEqual([
      "data",
      "eventId",
      "eventType",
      "occurredAt",
      "partnerId",
      "schemaVersion"
    ])
    expect(envelope).toMatchObject({
      eventId,
      eventType: "webhook.test",
      partnerId: p.id,
      schemaVersion: 1,
      data: { endpointId: created.id }
    })
    expect(new Date(envelope.occurredAt).toISOString()).toBe(envelope.occurredAt)

    const d = await deliveryOf(p, eventId, (x) => x.status === "delivered")
    expect(d).toMatchObject({
      endpointId: created.id,
      eventType: "webhook.test",
      attempts: 1,
      responseCodes: [200],
      lastError: null,
      nextAttemptAt: null
    })
  })

  it("a failing receiver is retried at +1 m, +5 m, +30 m, +2 h, +6 h with the same bytes, then dead-lettered; replay delivers it", async () => {
    const p = await newPartner(host, "Flaky LLC")
    const countersBefore = (await attemptCounters()).counts
    const rx = await receiver({ status: 503 })
    const { id: endpointId, secret } = await createEndpoint(p, { url: rx.url })
    const eventId = await sendTest(p, endpointId)

    const first = await rx.nth(1)
    let d = await deliveryOf(p, eventId, (x) => x.status === "pending" && x.responseCodes.length === 1)
    expect(d).toMatchObject({ responseCodes: [503], attempts: 1, lastError: "HTTP 503" })
    expectScheduled(d, first, 60_000)

    const delays = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000]
    let previous = first
    for (const [i, delay] of delays.entries()) {
      // Nothing more arrives until the sandbox clock reaches the next attempt.
      expect(rx.received).toHaveLength(i + 1)
      await advanceClock(host, delay / 1000 + 1)
      const r = await rx.nth(i + 2)
      // The same event, byte for byte, signed anew.
      expect(r.headers["x-service-event-id"]).toBe(eventId)
      expect(r.body.equals(first.body)).toBe(true)
      expect(timestampMs(r)).toBeGreaterThanOrEqual(timestampMs(previous) + delay)
      expect((await verify(r, secret)).ok).toBe(true)
      previous = r
      const attempts = i + 2
      d = await deliveryOf(p, eventId, (x) => x.responseCodes.length === attempts, `attempt ${attempts}`)
      expect(d.responseCodes).toEqual(Array(attempts).fill(503))
      expect(d.attempts).toBe(attempts)
      const next = delays[i + 1]
      if (next === undefined) {
        expect(d).toMatchObject({ status: "dead_lettered", nextAttemptAt: null, lastError: "HTTP 503" })
      } else {
        expect(d.status).toBe("pending")
        expectScheduled(d, r, next)
      }
    }

    // Replay starts a fresh budget under the same eventId.
    rx.setReply({ status: 200 })
    const replayed = await replay(p, d.id)
    expect(replayed.status, replayed.text).toBe(200)
    expect(replayed.json).toMatchObject({ id: d.id, eventId, status: "pending", attempts: 0 })
    const last = await rx.nth(7)
    expect(last.headers["x-service-event-id"]).toBe(eventId)
    expect(last.body.equals(first.body)).toBe(true)
    d = await deliveryOf(p, eventId, (x) => x.status === "delivered")
    expect(d).toMatchObject({ attempts: 1, responseCodes: [503, 503, 503, 503, 503, 503, 200], lastError: null })

    // /metrics counted each attempt by what became of the delivery and the answer it got.
    const counted = await waitFor("the attempt counters", async () => {
      const { text, counts } = await attemptCounters()
      const delta = Object.fromEntries(
        Object.entries(counts)
          .map(([k, n]) => [k, n - (countersBefore[k] ?? 0)])
          .filter(([, n]) => n !== 0)
      )
      return delta["delivered/2xx"] === 1 ? { text, delta } : undefined
    })
    expect(counted.delta).toEqual({ "retrying/5xx": 5, "dead_lettered/5xx": 1, "delivered/2xx": 1 })
    // Every delivery so far has had its attempt: the backlog gauges show nothing waiting.
    expect(counted.text).toMatch(/^frank_webhook_due_deliveries 0$/m)
    expect(counted.text).toMatch(/^frank_webhook_oldest_due_age_seconds 0$/m)
    expect(counted.text).toMatch(/^frank_webhook_uncertain_total 0$/m)
  })

  it("replay: delivered again under the same eventId; 409 for queued, paused or deleted endpoints; 404 for unknown ids", async () => {
    const p = await newPartner(host, "Replay LLC")
    const ok = await receiver()
    const failing = await receiver({ status: 500 })
    const e1 = await createEndpoint(p, { url: ok.url })
    const e2 = await createEndpoint(p, { url: failing.url })

    const okEvents: Array<string> = []
    for (let i = 1; i <= 3; i++) {
      okEvents.push(await sendTest(p, e1.id))
      await ok.nth(i)
    }
    const delivered = await Promise.all(okEvents.map((id) => deliveryOf(p, id, (x) => x.status === "delivered")))
    const queuedEvent = await sendTest(p, e2.id)
    const queued = await deliveryOf(p, queuedEvent, (x) => x.status === "pending" && x.responseCodes.length === 1)
    const [d1, d2] = delivered as [Delivery, Delivery, Delivery]

    // Delivered → pending → delivered again, same eventId, same bytes.
    const again = await replay(p, d1.id)
    expect(again.status, again.text).toBe(200)
    expect(again.json).toMatchObject({ id: d1.id, eventId: d1.eventId, status: "pending", attempts: 0 })
    const r = await ok.nth(4)
    expect(r.headers["x-service-event-id"]).toBe(d1.eventId)
    expect(r.body.equals(ok.received[0]?.body as Buffer)).toBe(true)
    const redelivered = await deliveryOf(p, d1.eventId, (x) => x.status === "delivered" && x.responseCodes.length === 2)
    expect(redelivered).toMatchObject({ responseCodes: [200, 200], attempts: 1 })

    // Queued for a retry: not replayable.
    const notReplayable = await replay(p, queued.id)
    expect(notReplayable.status).toBe(409)
    expect(notReplayable.json).toMatchObject({ statusCode: 409, code: "DELIVERY_NOT_REPLAYABLE" })

    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const missing = await replay(p, id)
      expect(missing.status).toBe(404)
      expect(missing.json).toMatchObject({ statusCode: 404, code: "DELIVERY_NOT_FOUND" })
    }

    // The delivery log: newest first, filters, pages.
    const all = await deliveries(p)
    expect(all.shown).toBe(4)
    expect(all.nextCursor).toBeNull()
    expect(all.deliveries.map((x) => x.eventId)).toEqual([queuedEvent, ...[...okEvents].reverse()])
    expect((await deliveries(p, `?endpointId=${e1.id}`)).deliveries.map((x) => x.id).sort()).toEqual(
      delivered.map((x) => x.id).sort()
    )
    expect((await deliveries(p, `?endpointId=${e2.id}`)).deliveries.map((x) => x.id)).toEqual([queued.id])
    expect((await deliveries(p, "?status=pending")).deliveries.map((x) => x.id)).toEqual([queued.id])
    expect((await deliveries(p, "?status=delivered")).shown).toBe(3)
    expect((await deliveries(p, `?status=delivered&endpointId=${e2.id}`)).shown).toBe(0)
    const seen: Array<string> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const page = await deliveries(p, `?limit=3${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
      expect(page.shown).toBe(page.deliveries.length)
      expect(page.shown).toBeLessThanOrEqual(3)
      seen.push(...page.deliveries.map((x) => x.id))
      cursor = page.nextCursor
      pages++
    } while (cursor !== null && pages < 10)
    expect(pages).toBe(2)
    expect(seen).toEqual(all.deliveries.map((x) => x.id))
    const badCursor = await call(host, "GET", "/v1/webhooks/deliveries?cursor=bogus", { headers: p.monitor })
    expect(badCursor.status).toBe(400)
    expect(badCursor.json.code).toBe("DELIVERY_CURSOR_INVALID")
    // Well-formed base64 of a position whose id is no UUID: refused before the store casts it.
    const forged = await call(
      host,
      "GET",
      `/v1/webhooks/deliveries?cursor=${encodeURIComponent(btoa(`1:${"-".repeat(36)}`))}`,
      { headers: p.monitor }
    )
    expect(forged.status).toBe(400)
    expect(forged.json.code).toBe("DELIVERY_CURSOR_INVALID")
    for (const q of ["?limit=0", "?limit=101", "?status=sent"]) {
      const bad = await call(host, "GET", `/v1/webhooks/deliveries${q}`, { headers: p.monitor })
      expect(bad.status, q).toBe(400)
      expect(bad.json.code, q).toBe("VALIDATION_FAILED")
    }

    // A paused endpoint: replay and test refuse until it is active again.
    const paused = await call(host, "PATCH", `/v1/webhooks/endpoints/${e1.id}`, {
      headers: p.key,
      body: { active: false }
    })
    expect(paused.status, paused.text).toBe(200)
    expect(paused.json).toMatchObject({ id: e1.id, active: false })
    const inactive = await replay(p, d2.id)
    expect(inactive.status).toBe(409)
    expect(inactive.json).toMatchObject({ statusCode: 409, code: "DELIVERY_ENDPOINT_INACTIVE" })
    const testPaused = await call(host, "POST", `/v1/webhooks/endpoints/${e1.id}/test`, { headers: p.key })
    expect(testPaused.status).toBe(409)
    expect(testPaused.json.code).toBe("WEBHOOK_ENDPOINT_INACTIVE")

    // Deleted: its delivered history stays listed, replays refuse, its queued retry goes with it.
    for (const e of [e1, e2]) {
      const del = await call(host, "DELETE", `/v1/webhooks/endpoints/${e.id}`, { headers: p.key })
      expect(del.status, del.text).toBe(200)
      expect(del.json).toEqual({ id: e.id, deleted: true })
    }
    const gone = await replay(p, d2.id)
    expect(gone.status).toBe(409)
    expect(gone.json).toMatchObject({ statusCode: 409, code: "DELIVERY_ENDPOINT_DELETED" })
    const afterDelete = await deliveries(p)
    expect(afterDelete.deliveries.map((x) => x.id).sort()).toEqual(delivered.map((x) => x.id).sort())
    expect((await call(host, "GET", "/v1/webhooks/endpoints", { headers: p.monitor })).json.items).toEqual([])
    const again404 = await call(host, "DELETE", `/v1/webhooks/endpoints/${e1.id}`, { headers: p.key })
    expect(again404.status).toBe(404)
    expect(again404.json.code).toBe("WEBHOOK_ENDPOINT_NOT_FOUND")
  })

  it("rotation: both signatures for 6 h, then only the new one; a second rotation drops the oldest secret", async () => {
    const p = await newPartner(host, "Rotate LLC")
    const rx = await receiver()
    const { id, secret: oldSecret } = await createEndpoint(p, { url: rx.url })

    const before = await hostNow(host)
    const rotated = await call(host, "POST", `/v1/webhooks/endpoints/${id}/rotate-secret`, { headers: p.key })
    expect(rotated.status, rotated.text).toBe(200)
    const newSecret = rotated.json.secret as string
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(newSecret).not.toBe(oldSecret)
    const validUntil = Date.parse(rotated.json.previousSecretValidUntil)
    expect(validUntil - before).toBeGreaterThanOrEqual(6 * 3600_000)
    expect(validUntil - before).toBeLessThan(6 * 3600_000 + 30_000)
    const listed = (await call(host, "GET", "/v1/webhooks/endpoints", { headers: p.monitor })).json.items[0]
    expect(listed.previousSecretValidUntil).toBe(rotated.json.previousSecretValidUntil)
    expect(JSON.stringify(listed)).not.toContain(newSecret)

    await sendTest(p, id)
    const during = await rx.nth(1)
    expect(during.headers["x-service-signature-previous"]).toMatch(/^sha256=[0-9a-f]{64}$/)
    expect(during.headers["x-service-signature"]).not.toBe(during.headers["x-service-signature-previous"])
    // New secret in X-Service-Signature, old secret in X-Service-Signature-Previous.
    expect((await verify(during, newSecret, without(during, "x-service-signature-previous"))).ok).toBe(true)
    expect((await verify(during, oldSecret, without(during, "x-service-signature"))).ok).toBe(true)
    expect((await verify(during, oldSecret, without(during, "x-service-signature-previous"))).ok).toBe(false)
    // A receiver that has not switched yet still verifies.
    expect((await verify(during, oldSecret)).ok).toBe(true)

    await advanceClock(host, 6 * 3600 + MINUTE)
    await sendTest(p, id)
    const after = await rx.nth(2)
    expect(after.headers["x-service-signature-previous"]).toBeUndefined()
    expect((await verify(after, newSecret)).ok).toBe(true)
    expect(await verify(after, oldSecret)).toEqual({ ok: false, reason: "signature_mismatch" })
    const listedAfter = (await call(host, "GET", "/v1/webhooks/endpoints", { headers: p.monitor })).json.items[0]
    expect(listedAfter.previousSecretValidUntil).toBeNull()

    // Two rotations inside one window: only the last two secrets sign.
    const second = (await call(host, "POST", `/v1/webhooks/endpoints/${id}/rotate-secret`, { headers: p.key })).json
      .secret as string
    const third = (await call(host, "POST", `/v1/webhooks/endpoints/${id}/rotate-secret`, { headers: p.key })).json
      .secret as string
    await sendTest(p, id)
    const twice = await rx.nth(3)
    expect((await verify(twice, third, without(twice, "x-service-signature-previous"))).ok).toBe(true)
    expect((await verify(twice, second, without(twice, "x-service-signature"))).ok).toBe(true)
    expect((await verify(twice, newSecret)).ok).toBe(false)
  })

  it("registration: at most 10 endpoints under concurrency, known event types only, scopes, and tenancy", async () => {
    const a = await newPartner(host, "Tenant A")
    const b = await newPartner(host, "Tenant B")

    // 15 concurrent registrations (from 15 addresses, so the per-IP limit stays out of the way).
    const attempts = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        call(host, "POST", "/v1/webhooks/endpoints", {
          headers: { ...a.key, "x-forwarded-for": freshIp() },
          body: { url: `http://127.0.0.1:9/concurrent-${i}` }
        })
      )
    )
    const created = attempts.filter((r) => r.status === 201)
    const refused = attempts.filter((r) => r.status !== 201)
    for (const r of created)
      cleanups.push(() => call(host, "DELETE", `/v1/webhooks/endpoints/${r.json.id}`, { headers: a.key }))
    expect(created).toHaveLength(10)
    expect(refused.map((r) => [r.status, r.json.code])).toEqual(Array(5).fill([400, "WEBHOOK_ENDPOINT_LIMIT_EXCEEDED"]))
    const aList = await call(host, "GET", "/v1/webhooks/endpoints", { headers: a.monitor })
    expect(aList.json.items.map((e: { id: string }) => e.id).sort()).toEqual(created.map((r) => r.json.id).sort())

    // Event types are checked against the catalog.
    const unknown = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers: b.key,
      body: { url: "http://127.0.0.1:9/x", eventTypes: ["billing.nope"] }
    })
    expect(unknown.status).toBe(400)
    expect(unknown.json).toMatchObject({ statusCode: 400, code: "WEBHOOK_EVENT_TYPE_UNKNOWN" })
    expect(String(unknown.json.message)).toContain("billing.nope")
    const both = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers: b.key,
      body: { url: "not a url", eventTypes: ["billing.nope"] }
    })
    expect(both.status).toBe(400)
    expect(both.json.code).toBe("VALIDATION_FAILED")
    expect(both.json.message).toHaveLength(2)
    // A wrong element type names that element only (not also "eventTypes: Expected undefined",
    // the optional's other branch, which read as if the field were not allowed).
    const notString = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers: b.key,
      body: { url: "http://127.0.0.1:9/x", eventTypes: ["billing.settled", 5] }
    })
    expect(notString.status).toBe(400)
    expect(notString.json).toMatchObject({
      code: "VALIDATION_FAILED",
      message: ["eventTypes.1: Expected string, actual 5"]
    })
    const patchNotString = await call(host, "PATCH", `/v1/webhooks/endpoints/${randomUUID()}`, {
      headers: b.key,
      body: { eventTypes: ["billing.settled", 5] }
    })
    expect(patchNotString.status).toBe(400)
    expect(patchNotString.json).toMatchObject({
      code: "VALIDATION_FAILED",
      message: ["eventTypes.1: Expected string, actual 5"]
    })
    const badScheme = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers: b.key,
      body: { url: "ftp://127.0.0.1/x" }
    })
    expect(badScheme.status).toBe(400)
    expect(badScheme.json.code).toBe("WEBHOOK_URL_NOT_HTTPS")
    const rx = await receiver()
    const bEndpoint = await createEndpoint(b, { url: rx.url, eventTypes: ["billing.settled", "billing.settled"] })
    expect(bEndpoint.view).toMatchObject({ eventTypes: ["billing.settled"], subscribedToAll: false })

    // webhooks:read lists but cannot change anything.
    const reader = keyHeaders((await issueKey(host, a.cookie, { scopes: ["webhooks:read"] })).raw)
    const denied = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers: reader,
      body: { url: "http://127.0.0.1:9/r" }
    })
    expect(denied.status).toBe(403)
    expect(denied.json).toMatchObject({ statusCode: 403, code: "API_KEY_SCOPE_REQUIRED" })
    const aEndpoint = created[0]?.json.id as string
    for (const [method, path] of [
      ["PATCH", `/v1/webhooks/endpoints/${aEndpoint}`],
      ["DELETE", `/v1/webhooks/endpoints/${aEndpoint}`],
      ["POST", `/v1/webhooks/endpoints/${aEndpoint}/rotate-secret`],
      ["POST", `/v1/webhooks/endpoints/${aEndpoint}/test`]
    ] as const) {
      const r = await call(host, method, path, {
        headers: reader,
        ...(method === "PATCH" ? { body: { active: false } } : {})
      })
      expect(r.status, `${method} ${path}`).toBe(403)
      expect(r.json.code).toBe("API_KEY_SCOPE_REQUIRED")
    }
    expect((await call(host, "GET", "/v1/webhooks/endpoints", { headers: reader })).json.items).toHaveLength(10)
    expect((await call(host, "GET", "/v1/webhooks/deliveries", { headers: reader })).status).toBe(200)
    // A key without any webhook scope cannot even read.
    const billingOnly = keyHeaders((await issueKey(host, a.cookie, { scopes: ["billing:read"] })).raw)
    expect((await call(host, "GET", "/v1/webhooks/endpoints", { headers: billingOnly })).status).toBe(403)

    // Tenancy: B's delivery, A's key.
    const bEvent = await sendTest(b, bEndpoint.id)
    await rx.nth(1)
    const bDelivery = await deliveryOf(b, bEvent, (x) => x.status === "delivered")
    for (const [method, path] of [
      ["PATCH", `/v1/webhooks/endpoints/${bEndpoint.id}`],
      ["DELETE", `/v1/webhooks/endpoints/${bEndpoint.id}`],
      ["POST", `/v1/webhooks/endpoints/${bEndpoint.id}/rotate-secret`],
      ["POST", `/v1/webhooks/endpoints/${bEndpoint.id}/test`]
    ] as const) {
      const r = await call(host, method, path, {
        headers: a.key,
        ...(method === "PATCH" ? { body: { url: "http://127.0.0.1:9/pwned" } } : {})
      })
      expect(r.status, `${method} ${path}`).toBe(404)
      expect(r.json.code).toBe("WEBHOOK_ENDPOINT_NOT_FOUND")
    }
    const foreignReplay = await replay(a, bDelivery.id)
    expect(foreignReplay.status).toBe(404)
    expect(foreignReplay.json.code).toBe("DELIVERY_NOT_FOUND")
    const aView = await deliveries(a)
    expect(aView.deliveries).toEqual([])
    expect((await deliveries(a, `?endpointId=${bEndpoint.id}`)).deliveries).toEqual([])
    expect(aList.json.items.map((e: { id: string }) => e.id)).not.toContain(bEndpoint.id)
    // B's endpoint is untouched: same url, same secret, nothing new sent.
    const bList = await call(host, "GET", "/v1/webhooks/endpoints", { headers: b.monitor })
    expect(bList.json.items).toHaveLength(1)
    expect(bList.json.items[0]).toMatchObject({
      id: bEndpoint.id,
      url: rx.url,
      active: true,
      previousSecretValidUntil: null
    })
    expect(bList.json.items.map((e: { id: string }) => e.id)).not.toContain(aEndpoint)
    expect((await deliveries(b)).deliveries.map((x) => x.id)).toEqual([bDelivery.id])
    expect((await verify(rx.received[0] as ReceivedRequest, bEndpoint.secret)).ok).toBe(true)
    expect(rx.received).toHaveLength(1)
  })

  it("billing.low_balance through the outbox: after a movement that lowers available below 1000 ₣, at most once per 24 h", async () => {
    const p = await newPartner(host, "Low Balance LLC")
    const rx = await receiver()
    const settledOnly = await receiver()
    const { id: endpointId, secret } = await createEndpoint(p, { url: rx.url, eventTypes: ["billing.low_balance"] })
    await createEndpoint(p, { url: settledOnly.url, eventTypes: ["billing.settled"] })
    const lowDeliveries = async () =>
      (await deliveries(p)).deliveries.filter((d) => d.eventType === "billing.low_balance")

    // Credits never lower available: no event even below the threshold.
    await adminCredit(host, p.id, 500, "bonus")
    await adminCredit(host, p.id, 1000, "adjustment")
    // Lowering, but still above the threshold.
    await adminCredit(host, p.id, -100, "adjustment")
    expect((await deliveries(p)).deliveries).toEqual([])

    // 1400 → 800: low. The delivery is written with the movement, so it is listed at once.
    await adminCredit(host, p.id, -600, "adjustment")
    const [first, ...more] = await lowDeliveries()
    expect(more).toEqual([])
    expect(first?.endpointId).toBe(endpointId)
    const r1 = await rx.nth(1)
    expect(r1.headers["x-service-event"]).toBe("billing.low_balance")
    expect(r1.headers["x-service-event-id"]).toBe(first?.eventId)
    expect((await verify(r1, secret)).ok).toBe(true)
    expect(envelopeOf(r1)).toMatchObject({
      eventType: "billing.low_balance",
      partnerId: p.id,
      schemaVersion: 1,
      data: { availableFranks: 800, thresholdFranks: 1000 }
    })
    const balance = await call(host, "GET", "/v1/billing/balance", {
      headers: keyHeaders((await issueKey(host, p.cookie)).raw)
    })
    expect(balance.json).toMatchObject({ available: 800, isLow: true })

    // Lower again within 24 h: nothing new.
    await adminCredit(host, p.id, -100, "adjustment")
    expect(await lowDeliveries()).toHaveLength(1)

    // Nor 23 h later; 24 h after the first, the next lowering movement emits again, with a new eventId.
    await advanceClock(host, 23 * 3600)
    await adminCredit(host, p.id, -100, "adjustment")
    expect(await lowDeliveries()).toHaveLength(1)
    await advanceClock(host, 3600 + 1)
    await adminCredit(host, p.id, -100, "adjustment")
    const lows = await lowDeliveries()
    expect(lows).toHaveLength(2)
    const r2 = await rx.nth(2)
    expect(r2.headers["x-service-event-id"]).toBe(lows[0]?.eventId)
    expect(r2.headers["x-service-event-id"]).not.toBe(first?.eventId)
    expect(envelopeOf(r2).data).toEqual({ availableFranks: 500, thresholdFranks: 1000 })
    await deliveryOf(p, lows[0]?.eventId as string, (x) => x.status === "delivered")
    expect(rx.received).toHaveLength(2)
    // The endpoint subscribed to other types got nothing.
    expect(settledOnly.received).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------
// Two real host processes on one PostgreSQL database (DATABASE_URL; a schema of their own), as an
// operator scales the reference host out: both serve the API and both run delivery workers, which
// claim with SKIP LOCKED, wake each other with NOTIFY after commit, and never send an event twice.

const pgUrl = process.env.DATABASE_URL

const adminQuery = async (text: string) => {
  const client = new pg.Client({ connectionString: pgUrl })
  await client.connect()
  try {
    return (await client.query(text)).rows
  } finally {
    await client.end()
  }
}
const adminStatement = async (text: string) => {
  await adminQuery(text)
}

// Only with DATABASE_URL (npm test in CI has it; README: "set DATABASE_URL to also run the Postgres suites").
if (pgUrl !== undefined && pgUrl.length > 0)
  describe("webhooks on two hosts sharing PostgreSQL", () => {
    const schema = `frank_e2e_${randomUUID().replaceAll("-", "")}`
    const hosts: Array<RunningHost> = []
    let rx: Receiver

    beforeAll(async () => {
      await adminStatement(`CREATE SCHEMA ${schema}`)
      // Same database, same pepper (API keys made on one host must verify on the other).
      const env = {
        DATABASE_URL: pgUrl,
        FRANK_DB_SCHEMA: schema,
        FRANK_KEY_PEPPER: `pepper-${schema}`,
        FRANK_ALLOW_PRIVATE_NETWORK: "true",
        FRANK_TRUST_PROXY: "true"
      }
      // One after the other: both would otherwise run the migrations at once.
      hosts.push(await spawnHost(env))
      hosts.push(await spawnHost(env))
      rx = await startReceiver()
    }, 240_000)

    afterAll(async () => {
      await rx?.close()
      for (const h of hosts) expect(await h.stop()).toBe(0)
      // No listener restarts, no failed NOTIFYs, nothing else gone wrong on either side.
      const problems = (h: RunningHost) =>
        h
          .logs()
          .split("\n")
          .filter(
            (l) =>
              (l.includes('"level":"ERROR"') || l.includes('"level":"WARN')) &&
              !l.includes("FRANK_ALLOW_PRIVATE_NETWORK is on")
          )
      for (const h of hosts) expect(problems(h)).toEqual([])
      // The hosts kept their tables in FRANK_DB_SCHEMA.
      expect(await adminQuery(`SELECT to_regclass('${schema}.webhook_deliveries') IS NOT NULL AS found`)).toEqual([
        { found: true }
      ])
      await adminStatement(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    }, 60_000)

    it("events sent through either host reach the receiver exactly once each, signed", async () => {
      const [a, b] = hosts as [RunningHost, RunningHost]
      const partner = await newPartner(a, "Scaled Out")
      const endpoint = await call(a, "POST", "/v1/webhooks/endpoints", { headers: partner.key, body: { url: rx.url } })
      expect(endpoint.status, endpoint.text).toBe(201)
      const key = { ...partner.key, "x-forwarded-for": freshIp() }

      const EVENTS = 30
      const eventIds: Array<string> = []
      for (let i = 0; i < EVENTS; i++) {
        const host = i % 2 === 0 ? a : b
        // A client address per request: the spec's per-IP limit on this route is a few a minute.
        const t = await call(host, "POST", `/v1/webhooks/endpoints/${endpoint.json.id}/test`, {
          headers: { ...key, "x-forwarded-for": freshIp() }
        })
        expect(t.status, t.text).toBe(200)
        eventIds.push(t.json.eventId)
      }
      await rx.nth(EVENTS)
      // Both hosts' listings agree: every delivery delivered at its first attempt.
      for (const host of [a, b]) {
        const listed = await waitFor("every delivery delivered", async () => {
          const r = await call(host, "GET", "/v1/webhooks/deliveries?limit=100", { headers: key })
          expect(r.status, r.text).toBe(200)
          const ds = r.json.deliveries as Array<{ eventId: string; status: string; attempts: number }>
          return ds.length === EVENTS && ds.every((d) => d.status === "delivered") ? ds : undefined
        })
        expect(listed.every((d) => d.attempts === 1)).toBe(true)
        expect(new Set(listed.map((d) => d.eventId))).toEqual(new Set(eventIds))
      }
      // Nothing arrives twice, even after both workers had time to look again.
      await new Promise((r) => setTimeout(r, 1_500))
      const received = rx.received.map((r) => r.headers["x-service-event-id"])
      expect(received).toHaveLength(EVENTS)
      expect(new Set(received)).toEqual(new Set(eventIds))
      for (const r of rx.received) {
        const verified = await WebhookReceiver.verifyWebhook({
          secret: endpoint.json.secret,
          headers: r.headers as Record<string, string>,
          rawBody: r.body,
          now: Number(r.headers["x-service-timestamp"]) * 1000
        })
        expect(verified.ok).toBe(true)
      }
    })
  })

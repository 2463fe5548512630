/**
 * Bulk recovery end to end: the real host (embedded PGlite) over HTTP and a real receiver on
 * loopback. The receiver is down until 100 deliveries are dead-lettered (the retry schedule run
 * with the sandbox clock), then one `recover` call delivers each exactly once more. Also the
 * route's answers for a bad window, an unknown, paused or deleted endpoint, and a read-only key.
 */
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { advanceClock, envelopeOf, hostNow, newPartner, type Receiver, startReceiver, waitFor } from "./hostClient.js"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"

const ENV = {
  FRANK_ALLOW_PRIVATE_NETWORK: "true",
  FRANK_SANDBOX_CLOCK: "true",
  FRANK_TRUST_PROXY: "true",
  // A hundred test events from one key in a few seconds.
  FRANK_RATE_LIMIT_MULTIPLIER: "20"
}
const COUNT = 100
/** The waits after the 1st…5th failure, in seconds (docs/contract.md §5 "attempts"). */
const RETRY_DELAYS = [60, 300, 1800, 7200, 21600]

let host: RunningHost
let receiver: Receiver

beforeAll(async () => {
  host = await spawnHost(ENV)
  receiver = await startReceiver({ status: 503 })
}, 120_000)

afterAll(async () => {
  await receiver?.close()
  expect(await host?.stop()).toBe(0)
}, 60_000)

const recover = (key: Record<string, string>, endpointId: string, body: unknown) =>
  call(host, "POST", `/v1/webhooks/endpoints/${endpointId}/recover`, { headers: key, body })

/** Requests per event id the receiver got so far. */
const perEvent = () => {
  const counts = new Map<string, number>()
  for (const r of receiver.received) {
    const id = String(r.headers["x-service-event-id"])
    counts.set(id, (counts.get(id) ?? 0) + 1)
  }
  return counts
}

describe("bulk recovery on the host", () => {
  it("a receiver down until 100 deliveries are dead-lettered gets each exactly once more after one recover call", async () => {
    const partner = await newPartner(host, "Outage LLC")
    const created = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers: partner.key,
      body: { url: receiver.url, eventTypes: ["webhook.test"] }
    })
    expect(created.status, created.text).toBe(201)
    const endpointId = created.json.id as string
    const start = await hostNow(host)

    const events: Array<string> = []
    for (let i = 0; i < COUNT; i++) {
      const t = await call(host, "POST", `/v1/webhooks/endpoints/${endpointId}/test`, { headers: partner.key })
      expect(t.status, t.text).toBe(200)
      events.push(t.json.eventId)
    }
    const log = async () => {
      const r = await call(host, "GET", "/v1/webhooks/deliveries?limit=100", { headers: partner.monitor })
      expect(r.status, r.text).toBe(200)
      return r.json.deliveries as Array<{ eventId: string; status: string; responseCodes: Array<number | null> }>
    }
    // A failure's retry is scheduled from the clock when its outcome is written, which can come
    // after the receiver saw the request: advancing before every outcome is written would put
    // those retries a whole wait past the new clock.
    const outcomesWritten = (attempts: number) =>
      waitFor(
        `${COUNT} deliveries with ${attempts} recorded attempts`,
        async () => {
          const ds = await log()
          return ds.length === COUNT && ds.every((d) => d.responseCodes.length === attempts) ? ds : undefined
        },
        { timeoutMs: 60_000 }
      )
    await receiver.nth(COUNT, 30_000)
    // Each retry falls due when the clock passes its wait; the worker's poll (1 s) takes it. Under
    // the full suite's load a round has taken over 30 s (docs/reliability.md, open question).
    for (const [i, seconds] of RETRY_DELAYS.entries()) {
      await outcomesWritten(i + 1)
      await advanceClock(host, seconds)
      await receiver.nth(COUNT * (i + 2), 90_000)
    }
    const dead = await waitFor("100 dead-lettered deliveries", async () => {
      const ds = await log()
      return ds.length === COUNT && ds.every((d) => d.status === "dead_lettered") ? ds : undefined
    })
    expect(dead.every((d) => d.responseCodes.length === 6 && d.responseCodes.every((c) => c === 503))).toBe(true)
    expect(receiver.received).toHaveLength(COUNT * 6)

    // The receiver is back.
    receiver.setReply({ status: 200 })
    const since = new Date(start - 60_000).toISOString()
    const first = await recover(partner.key, endpointId, { since })
    expect(first.status, first.text).toBe(200)
    expect(first.json).toEqual({ requeued: COUNT, remaining: 0 })
    await receiver.nth(COUNT * 7, 30_000)
    const delivered = await waitFor("100 delivered deliveries", async () => {
      const ds = await log()
      return ds.every((d) => d.status === "delivered") ? ds : undefined
    })
    expect(delivered.every((d) => d.responseCodes.length === 7 && d.responseCodes[6] === 200)).toBe(true)
    // Calling again requeues nothing: every delivery of the window is delivered.
    const again = await recover(partner.key, endpointId, { since })
    expect(again.json).toEqual({ requeued: 0, remaining: 0 })
    // Nothing more arrives: each event was sent six times failing and once more, answered 200.
    await new Promise((r) => setTimeout(r, 2_500))
    expect(receiver.received).toHaveLength(COUNT * 7)
    const counts = perEvent()
    expect([...counts.keys()].sort()).toEqual([...events].sort())
    expect([...counts.values()].every((n) => n === 7)).toBe(true)
    const recovered = receiver.received.slice(COUNT * 6)
    expect(new Set(recovered.map((r) => envelopeOf(r).eventId)).size).toBe(COUNT)
  }, 300_000)

  it("answers a bad window with every violation, unknown and foreign endpoints 404, paused and deleted 409", async () => {
    const partner = await newPartner(host, "Recovery Codes LLC")
    const other = await newPartner(host, "Someone Else LLC")
    const created = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers: partner.key,
      body: { url: receiver.url }
    })
    expect(created.status, created.text).toBe(201)
    const id = created.json.id as string
    const now = await hostNow(host)
    const iso = (ms: number) => new Date(ms).toISOString()

    const bad = await recover(partner.key, id, { since: "last week", until: iso(now), extra: true })
    expect(bad.status).toBe(400)
    expect(bad.json.code).toBe("VALIDATION_FAILED")
    expect(bad.json.message).toEqual([expect.stringMatching(/^since: must be an ISO 8601 date-time/)])
    const several = await recover(partner.key, id, { since: iso(now - 40 * 86_400_000), until: iso(now) })
    expect(several.status).toBe(400)
    expect(several.json).toMatchObject({ statusCode: 400, code: "VALIDATION_FAILED" })
    expect(several.json.message).toEqual([
      expect.stringMatching(/^since: must not be before .*: deliveries are kept for 30 days/),
      "the window from since to until must not exceed 14 days"
    ])
    const missing = await recover(partner.key, id, {})
    expect(missing.status).toBe(400)
    expect(missing.json.message).toEqual(["since: is required"])

    const window = { since: iso(now - 3_600_000) }
    expect((await recover(partner.key, id, window)).json).toEqual({ requeued: 0, remaining: 0 })
    for (const [key, endpointId] of [
      [partner.key, randomUUID()],
      [partner.key, "not-an-id"],
      [other.key, id]
    ] as const) {
      const r = await recover(key, endpointId, window)
      expect(r.status, r.text).toBe(404)
      expect(r.json.code).toBe("WEBHOOK_ENDPOINT_NOT_FOUND")
    }
    const readOnly = await recover(partner.monitor, id, window)
    expect(readOnly.status).toBe(403)
    expect(readOnly.json.code).toBe("API_KEY_SCOPE_REQUIRED")

    const pause = await call(host, "PATCH", `/v1/webhooks/endpoints/${id}`, {
      headers: partner.key,
      body: { active: false }
    })
    expect(pause.status, pause.text).toBe(200)
    const paused = await recover(partner.key, id, window)
    expect([paused.status, paused.json.code]).toEqual([409, "DELIVERY_ENDPOINT_INACTIVE"])
    expect((await call(host, "DELETE", `/v1/webhooks/endpoints/${id}`, { headers: partner.key })).status).toBe(200)
    const deleted = await recover(partner.key, id, window)
    expect([deleted.status, deleted.json.code]).toEqual([409, "DELIVERY_ENDPOINT_DELETED"])
  })
})

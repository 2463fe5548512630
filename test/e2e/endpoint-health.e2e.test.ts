/**
 * Endpoint health end to end: the real host (embedded PGlite) with its thresholds from the
 * environment (FRANK_WEBHOOK_DISABLE_AFTER_DAYS=1, FRANK_WEBHOOK_DISABLE_MIN_FAILURES=1), real
 * receivers on loopback and the sandbox clock. A receiver that answers 503 dead-letters one event;
 * a day later the worker's sweep pauses its endpoint, the partner's other endpoint subscribed to
 * `webhook.endpoint.disabled` receives the event (valid against the catalog), /metrics counts the
 * pause, and PATCH re-enables it. The full rule (5 days, 10 dead letters) is the contract suite's.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { eventViolations } from "../support/eventCatalogCheck.js"
import { advanceClock, envelopeOf, newPartner, type Receiver, startReceiver, waitFor } from "./hostClient.js"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"

const ENV = {
  FRANK_ALLOW_PRIVATE_NETWORK: "true",
  FRANK_SANDBOX_CLOCK: "true",
  FRANK_TRUST_PROXY: "true",
  FRANK_WEBHOOK_DISABLE_AFTER_DAYS: "1",
  FRANK_WEBHOOK_DISABLE_MIN_FAILURES: "1"
}
const DAY_S = 86_400

let host: RunningHost
const receivers: Array<Receiver> = []

beforeAll(async () => {
  host = await spawnHost(ENV)
}, 120_000)

afterAll(async () => {
  for (const r of receivers) await r.close()
  expect(await host?.stop()).toBe(0)
}, 60_000)

describe("endpoint health on the host", () => {
  it("a failing endpoint is paused a day after its dead letter; the partner hears of it; PATCH re-enables", async () => {
    const p = await newPartner(host, "Failing LLC")
    const bad = await startReceiver({ status: 503 })
    const watch = await startReceiver({ status: 200 })
    receivers.push(bad, watch)
    const create = async (body: object) => {
      const r = await call(host, "POST", "/v1/webhooks/endpoints", { headers: p.key, body })
      expect(r.status, r.text).toBe(201)
      return r.json as { id: string; url: string }
    }
    const broken = await create({ url: bad.url })
    await create({ url: watch.url, eventTypes: ["webhook.endpoint.disabled"] })
    const brokenNow = async () => {
      const list = await call(host, "GET", "/v1/webhooks/endpoints", { headers: p.monitor })
      return list.json.items.find((e: { id: string }) => e.id === broken.id)
    }

    expect((await call(host, "POST", `/v1/webhooks/endpoints/${broken.id}/test`, { headers: p.key })).status).toBe(200)
    await bad.nth(1)
    // Through the retry schedule: +1 m, +5 m, +30 m, +2 h, +6 h; the sixth failure dead-letters.
    for (const [i, seconds] of [60, 300, 1_800, 7_200, 21_600].entries()) {
      await advanceClock(host, seconds + 1)
      await bad.nth(i + 2)
    }
    const failing = await waitFor("the failing span", async () => {
      const e = await brokenNow()
      return e?.failingSince === null ? undefined : e
    })
    expect(failing).toMatchObject({ active: true, lastSuccessAt: null, disabledAt: null, disabledReason: null })

    await advanceClock(host, DAY_S + 1)
    const paused = await waitFor("the pause", async () => {
      const e = await brokenNow()
      return e?.active === false ? e : undefined
    })
    expect(paused).toMatchObject({ disabledReason: "failing", failingSince: failing.failingSince })
    expect(Date.parse(paused.disabledAt)).toBeGreaterThanOrEqual(Date.parse(failing.failingSince) + DAY_S * 1000)

    const event = envelopeOf(await watch.nth(1))
    expect(event).toMatchObject({
      eventType: "webhook.endpoint.disabled",
      partnerId: p.id,
      data: { endpointId: broken.id, url: broken.url, failingSince: failing.failingSince }
    })
    expect(eventViolations(JSON.stringify(event))).toEqual([])
    // The paused endpoint is not told of its own pause.
    expect(bad.received.map((r) => r.headers["x-service-event"])).not.toContain("webhook.endpoint.disabled")
    expect((await call(host, "GET", "/metrics")).text).toMatch(
      /^frank_webhook_endpoints_disabled_total\{reason="failing"\} 1$/m
    )

    const resumed = await call(host, "PATCH", `/v1/webhooks/endpoints/${broken.id}`, {
      headers: p.key,
      body: { active: true }
    })
    expect(resumed.json).toMatchObject({ active: true, disabledAt: null, disabledReason: null })
    // A fresh span: the next sweeps leave it active.
    await advanceClock(host, 60)
    await new Promise((r) => setTimeout(r, 2_500))
    expect((await brokenNow()).active).toBe(true)
  }, 120_000)
})

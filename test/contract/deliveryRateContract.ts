/**
 * Per-endpoint delivery rate on every store, driven by TestClock through the simulation kit: a
 * limited endpoint's receiver never sees more than its limit in any sliding one-second window,
 * an unlimited endpoint beside it gets its whole backlog at once, deferred deliveries wait without
 * spending attempts, and the limit is set, changed and removed through the service.
 */
import { randomUUID as uuid } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import { Webhooks } from "@frank/core"
import { type EngineStores, ScriptedReceiver, Simulation, SimulationEngine, testPartner } from "@frank/core/testing"
import { Effect, Either, type Layer, TestClock } from "effect"

const T0 = Date.UTC(2026, 10, 2, 9, 0, 0)
const newUrl = (name: string) => `https://${name}-${uuid().slice(0, 8)}.example/hook`

/** The most requests among `times` inside any half-open window [t, t + 1 s) starting at one of them. */
export const busiestSecond = (times: ReadonlyArray<number>): number => {
  const sorted = [...times].sort((a, b) => a - b)
  let most = 0
  let start = 0
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] as number) - (sorted[start] as number) >= 1_000) start++
    most = Math.max(most, end - start + 1)
  }
  return most
}

export const deliveryRateContract = (engine: string, stores: Layer.Layer<EngineStores, unknown>) => {
  layer(SimulationEngine({ stores }), { timeout: 120_000 })(`delivery rate on ${engine}`, (it) => {
    it.effect("a limited endpoint gets at most its rate per second; an unlimited one everything at once", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const webhooks = yield* Webhooks.Webhooks
        const simulation = yield* Simulation
        const partnerId = testPartner(`p_${uuid()}`)
        const slowUrl = newUrl("slow")
        const fastUrl = newUrl("fast")
        const slow = yield* webhooks.createEndpoint(partnerId, { url: slowUrl, rateLimitPerSecond: 5 })
        const fast = yield* webhooks.createEndpoint(partnerId, { url: fastUrl })
        expect([slow.rateLimitPerSecond, fast.rateLimitPerSecond]).toEqual([5, null])
        const EACH = 30
        for (let i = 0; i < EACH; i++) {
          yield* webhooks.sendTest(partnerId, slow.id)
          yield* webhooks.sendTest(partnerId, fast.id)
        }
        yield* simulation.runDue
        const first = yield* (yield* ScriptedReceiver).received
        expect(first.filter((r) => r.url === fastUrl)).toHaveLength(EACH)
        // One slot at a time (burstSlots), one every 200 ms.
        expect(first.filter((r) => r.url === slowUrl)).toHaveLength(1)
        // The rest wait: pending, due later, no attempt spent.
        const waiting = yield* webhooks.listDeliveries(
          partnerId,
          { endpointId: slow.id, status: "pending" },
          100,
          undefined
        )
        expect(waiting.deliveries).toHaveLength(EACH - 1)
        for (const d of waiting.deliveries) {
          expect(d.attempts).toBe(0)
          expect(d.nextAttemptAt).toBeGreaterThan(T0)
        }
        // Spread one slot apart, not all due at once.
        expect(new Set(waiting.deliveries.map((d) => d.nextAttemptAt)).size).toBe(EACH - 1)
        yield* simulation.advance("20 seconds")
        const all = yield* (yield* ScriptedReceiver).received
        const slowTimes = all.filter((r) => r.url === slowUrl).map((r) => r.at)
        expect(slowTimes).toHaveLength(EACH)
        expect(busiestSecond(slowTimes)).toBe(5)
        // Not slower than the rate either: one slot every 200 ms.
        expect(Math.max(...slowTimes) - T0).toBeLessThanOrEqual((EACH - 1) * 200)
        const delivered = yield* webhooks.listDeliveries(partnerId, { endpointId: slow.id }, 100, undefined)
        expect(delivered.deliveries.map((d) => [d.status, d.attempts])).toEqual(
          Array.from({ length: EACH }, () => ["delivered", 1])
        )
      })
    )

    it.effect("the limit is checked, changed and removed with PATCH; a removed limit frees the backlog", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0 + 3_600_000)
        const webhooks = yield* Webhooks.Webhooks
        const simulation = yield* Simulation
        const partnerId = testPartner(`p_${uuid()}`)
        const url = newUrl("patched")
        for (const bad of [0, 10_001, 2.5, -1]) {
          const refused = yield* Effect.either(webhooks.createEndpoint(partnerId, { url, rateLimitPerSecond: bad }))
          expect(Either.isLeft(refused) && refused.left).toMatchObject({
            code: "WEBHOOK_RATE_LIMIT_INVALID",
            status: 400
          })
        }
        const e = yield* webhooks.createEndpoint(partnerId, { url, rateLimitPerSecond: 10_000 })
        expect(e.rateLimitPerSecond).toBe(10_000)
        const lowered = yield* webhooks.updateEndpoint(partnerId, e.id, { rateLimitPerSecond: 2 })
        expect(lowered.rateLimitPerSecond).toBe(2)
        expect((yield* webhooks.getEndpoint(partnerId, e.id)).rateLimitPerSecond).toBe(2)
        const refused = yield* Effect.either(webhooks.updateEndpoint(partnerId, e.id, { rateLimitPerSecond: 0 }))
        expect(Either.isLeft(refused) && refused.left).toMatchObject({ code: "WEBHOOK_RATE_LIMIT_INVALID" })
        // Other changes leave the limit alone.
        expect((yield* webhooks.updateEndpoint(partnerId, e.id, { active: true })).rateLimitPerSecond).toBe(2)
        for (let i = 0; i < 10; i++) yield* webhooks.sendTest(partnerId, e.id)
        yield* simulation.runDue
        const received = () =>
          Effect.map(
            Effect.flatMap(ScriptedReceiver, (r) => r.received),
            (all) => all.filter((r) => r.url === url)
          )
        expect(yield* received()).toHaveLength(1)
        const unlimited = yield* webhooks.updateEndpoint(partnerId, e.id, { rateLimitPerSecond: null })
        expect(unlimited.rateLimitPerSecond).toBeNull()
        expect((yield* webhooks.listEndpoints(partnerId)).map((x) => x.rateLimitPerSecond)).toEqual([null])
        // Deferred ones keep the due times they were given (a slot of 500 ms each), then go unlimited.
        yield* simulation.advance("5 seconds")
        const times = (yield* received()).map((r) => r.at)
        expect(times).toHaveLength(10)
        expect(Math.max(...times)).toBeLessThanOrEqual(T0 + 3_600_000 + 4_500)
        const log = yield* webhooks.listDeliveries(partnerId, { endpointId: e.id }, 100, undefined)
        expect(log.deliveries.map((d) => d.attempts)).toEqual(Array.from({ length: 10 }, () => 1))
      })
    )
  })
}

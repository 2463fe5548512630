/**
 * The reads behind the cabinet's webhook portal on every store: one delivery with its payload and
 * every attempt (duration, code, the first KiB of the body, error), the log's event-type and date
 * filters, an endpoint's attempt counts per bucket, and a catalog example sent as a test.
 */
import { randomUUID as uuid } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import { Events, Ids, Webhooks } from "@frank/core"
import { type EngineStores, ScriptedReceiver, Simulation, SimulationEngine, testPartner } from "@frank/core/testing"
import { Effect, Either, type Layer, TestClock } from "effect"
import type { AttemptBucket } from "@frank/core/stores"

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const T0 = Date.UTC(2026, 10, 1, 10, 30, 0)

const setup = Effect.gen(function* () {
  yield* TestClock.setTime(T0)
  const webhooks = yield* Webhooks.Webhooks
  const receiver = yield* ScriptedReceiver
  const sim = yield* Simulation
  const partnerId = testPartner(`p_${uuid()}`)
  const url = `https://portal-${uuid().slice(0, 8)}.example/hook`
  const endpoint = yield* webhooks.createEndpoint(partnerId, { url })
  return { webhooks, receiver, sim, partnerId, url, endpoint }
})

export const webhookPortalContract = (engine: string, stores: Layer.Layer<EngineStores, unknown>) => {
  layer(SimulationEngine({ stores }), { timeout: 120_000 })(`webhook portal reads on ${engine}`, (it) => {
    it.effect("a delivery reads with its payload and every attempt, bodies cut at 1 KiB on a character", () =>
      Effect.gen(function* () {
        const { webhooks, receiver, sim, partnerId, url, endpoint } = yield* setup
        // 1,023 ASCII bytes then "é" (2 bytes): the cut at 1,024 bytes falls inside it and drops it.
        const long = `${"x".repeat(1023)}é and more`
        yield* receiver.script(url, [
          { status: 503, body: `<b>down</b>` },
          { status: 200, body: long }
        ])
        const sent = yield* webhooks.sendTest(partnerId, endpoint.id)
        yield* sim.advance(2 * HOUR)
        const [row] = (yield* webhooks.listDeliveries(partnerId, {}, 10, undefined)).deliveries
        const detail = yield* webhooks.getDelivery(partnerId, row!.id)
        expect(detail.status).toBe("delivered")
        expect(detail.eventId).toBe(sent.event.id)
        expect(detail.payload).toBe(sent.event.payload)
        const received = (yield* receiver.received).filter((r) => r.url === url)
        expect(received[0]?.body).toBe(detail.payload)
        expect(detail.attemptLog.map((a) => [a.responseStatus, a.responseSnippet, a.error])).toEqual([
          [503, "<b>down</b>", "HTTP 503"],
          [200, "x".repeat(1023), null]
        ])
        for (const a of detail.attemptLog) expect(a.durationMs).toBeGreaterThanOrEqual(0)
        expect(detail.attemptLog[1]!.startedAt).toBeGreaterThan(detail.attemptLog[0]!.startedAt)

        const other = yield* Effect.either(webhooks.getDelivery(testPartner(`p_${uuid()}`), row!.id))
        expect(Either.isLeft(other) && other.left._tag).toBe("DeliveryNotFound")
      })
    )

    it.effect("the log filters by event type and creation time; the stats count attempts per bucket", () =>
      Effect.gen(function* () {
        const { webhooks, receiver, sim, partnerId, url, endpoint } = yield* setup
        yield* receiver.script(url, [500])
        yield* webhooks.sendTest(partnerId, endpoint.id)
        yield* sim.advance(30 * MINUTE)
        const later = T0 + 30 * MINUTE
        yield* webhooks.sendExample(partnerId, endpoint.id, "billing.settled")
        yield* sim.advance(MINUTE)
        const list = (filter: Webhooks.DeliveryFilter) =>
          Effect.map(webhooks.listDeliveries(partnerId, filter, 10, undefined), (p) => p.deliveries.length)
        expect(yield* list({})).toBe(2)
        expect(yield* list({ eventType: "webhook.test" })).toBe(2)
        expect(yield* list({ eventType: "billing.settled" })).toBe(0)
        expect(yield* list({ createdFrom: later })).toBe(1)
        expect(yield* list({ createdBefore: later })).toBe(1)
        expect(yield* list({ createdFrom: later + MINUTE })).toBe(0)

        const stats = yield* webhooks.endpointStats(partnerId, endpoint.id)
        expect(stats.day).toHaveLength(24)
        expect(stats.week).toHaveLength(7)
        const sum = (bs: ReadonlyArray<AttemptBucket>) =>
          bs.reduce((a, b) => ({ attempts: a.attempts + b.attempts, succeeded: a.succeeded + b.succeeded }), {
            attempts: 0,
            succeeded: 0
          })
        // The failed first attempt, its retry within the half hour, and the example.
        expect(sum(stats.day)).toEqual({ attempts: 3, succeeded: 2 })
        expect(sum(stats.week)).toEqual(sum(stats.day))
        expect(stats.day[23]!.start).toBeLessThanOrEqual(T0 + 31 * MINUTE)
        expect(stats.day[23]!.start + HOUR).toBeGreaterThan(T0 + 31 * MINUTE)
      })
    )

    it.effect("a catalog example goes to one endpoint as webhook.test carrying the example's data", () =>
      Effect.gen(function* () {
        const { webhooks, receiver, sim, partnerId, url, endpoint } = yield* setup
        yield* webhooks.sendExample(partnerId, endpoint.id, "task.succeeded")
        yield* sim.advance(MINUTE)
        const [got] = (yield* receiver.received).filter((r) => r.url === url)
        const body = JSON.parse(got!.body)
        const example = Events.eventCatalog.find((e) => e.type === "task.succeeded")!.example
        expect(body.eventType ?? body.type).toBe("webhook.test")
        expect(body.data).toEqual({ endpointId: endpoint.id, exampleOf: "task.succeeded", example })
        const unknown = yield* Effect.either(webhooks.sendExample(partnerId, endpoint.id, "no.such"))
        expect(Either.isLeft(unknown) && unknown.left._tag).toBe("EventTypeUnknown")
        const missing = yield* Effect.either(
          webhooks.sendExample(partnerId, Ids.EndpointId.make(uuid()), "task.succeeded")
        )
        expect(Either.isLeft(missing) && missing.left._tag).toBe("EndpointNotFound")
      })
    )
  })
}

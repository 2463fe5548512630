/**
 * Retention (`WebhookRetention`) on every store, under TestClock through the simulation kit:
 * days pass, the sweep runs at its times, finished deliveries and their events older than the
 * retention period are gone (the SQL store's by whole days, so checks fall past the day's end), in
 * statements of at most the batch size where rows go one by one, while younger ones and
 * unfinished ones (with their events) stay.
 */
import { randomUUID as uuid } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import { type Ids, Webhooks } from "@frank/core"
import { type EngineStores, ScriptedReceiver, Simulation, SimulationEngine, testPartner } from "@frank/core/testing"
import { Context, Effect, Layer, Ref, TestClock } from "effect"
import { EventStore, WebhookRetentionStore } from "@frank/core/stores"

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const T0 = Date.UTC(2026, 10, 1, 10, 0, 0)
/** A small batch, so a sweep takes several statements. */
const BATCH = 4

interface RemovalCall {
  readonly kind: "deliveries" | "events"
  readonly limit: number
  readonly removed: number
}

/** Every retention statement the store ran, with what it removed. */
class RemovalCalls extends Context.Tag("test/RemovalCalls")<RemovalCalls, Ref.Ref<ReadonlyArray<RemovalCall>>>() {}

/** The stores, their retention operations recorded. */
const recording = (stores: Layer.Layer<EngineStores, unknown>) =>
  Layer.effectContext(
    Effect.gen(function* () {
      const store = yield* WebhookRetentionStore
      const calls = yield* Ref.make<ReadonlyArray<RemovalCall>>([])
      const record =
        (kind: RemovalCall["kind"], remove: (before: number, limit: number) => Effect.Effect<number, unknown>) =>
        (before: number, limit: number) =>
          Effect.tap(remove(before, limit), (removed) => Ref.update(calls, (c) => [...c, { kind, limit, removed }]))
      return Context.make(WebhookRetentionStore, {
        ...store,
        deleteExpiredDeliveries: record("deliveries", store.deleteExpiredDeliveries),
        deleteExpiredEvents: record("events", store.deleteExpiredEvents)
      } as typeof store).pipe(Context.add(RemovalCalls, calls))
    })
  ).pipe(Layer.provideMerge(stores))

const newUrl = () => `https://retain-${uuid().slice(0, 8)}.example/hook`

const statusesOf = (partnerId: Ids.PartnerId) =>
  Effect.flatMap(Webhooks.Webhooks, (w) =>
    Effect.map(w.listDeliveries(partnerId, {}, 100, undefined), (p) => p.deliveries.map((d) => d.status).sort())
  )

const counted = (xs: ReadonlyArray<string>) => {
  const out: Record<string, number> = {}
  for (const x of xs) out[x] = (out[x] ?? 0) + 1
  return out
}

export const webhookRetentionContract = (engine: string, stores: Layer.Layer<EngineStores, unknown>) => {
  // One recorded store (a layer is built once however often it is provided), seen by the engine and the tests.
  const recorded = recording(stores)
  const engineLayer = SimulationEngine({
    stores: recorded,
    retention: { sweepIntervalMs: HOUR, batchSize: BATCH }
  }).pipe(Layer.provideMerge(recorded))
  layer(engineLayer, { timeout: 180_000 })(`webhook retention on ${engine}`, (it) => {
    it.effect(
      "days pass: finished deliveries and their events go after 30 days in bounded batches; younger and unfinished ones stay",
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(T0)
          const webhooks = yield* Webhooks.Webhooks
          const receiver = yield* ScriptedReceiver
          const sim = yield* Simulation
          const calls = yield* RemovalCalls
          const partnerId = testPartner(`p_${uuid()}`)
          const url = newUrl()
          const endpoint = yield* webhooks.createEndpoint(partnerId, { url })
          const pausedUrl = newUrl()
          const paused = yield* webhooks.createEndpoint(partnerId, { url: pausedUrl })
          const crashUrl = newUrl()
          const crashing = yield* webhooks.createEndpoint(partnerId, { url: crashUrl })
          // At T0: ten delivered, and one waiting for an endpoint paused before it could be sent.
          for (let i = 0; i < 10; i++) yield* webhooks.sendTest(partnerId, endpoint.id)
          const waiting = (yield* webhooks.sendTest(partnerId, paused.id)).event.id
          yield* webhooks.updateEndpoint(partnerId, paused.id, { active: false })
          yield* sim.advance(HOUR)
          // At T0 + 1 h: two dead-lettered after the whole schedule, one uncertain after a crash.
          yield* receiver.script(
            url,
            Array.from({ length: 12 }, () => 503)
          )
          yield* receiver.script(crashUrl, ["crash"])
          for (let i = 0; i < 2; i++) yield* webhooks.sendTest(partnerId, endpoint.id)
          yield* webhooks.sendTest(partnerId, crashing.id)
          yield* sim.advance(20 * DAY - HOUR)
          // At T0 + 20 days: three more, delivered.
          for (let i = 0; i < 3; i++) yield* webhooks.sendTest(partnerId, endpoint.id)
          yield* sim.runDue
          expect(counted(yield* statusesOf(partnerId))).toEqual({
            delivered: 13,
            dead_lettered: 2,
            uncertain: 1,
            pending: 1
          })

          // Short of 30 days nothing has gone.
          yield* Ref.set(calls, [])
          yield* sim.advance(10 * DAY - 2 * HOUR)
          expect(counted(yield* statusesOf(partnerId))).toEqual({
            delivered: 13,
            dead_lettered: 2,
            uncertain: 1,
            pending: 1
          })
          // Two days on, the finished ones of T0's day have gone (a store may keep a row until its
          // whole day is past: the SQL store drops history by day), the pending one stays.
          yield* sim.advance(2 * DAY)
          expect(counted(yield* statusesOf(partnerId))).toEqual({ delivered: 3, pending: 1 })

          // A full batch was followed by another statement.
          const made = yield* Ref.get(calls)
          expect(made.length).toBeGreaterThan(0)
          // Rows removed one by one go a batch at a time; a whole day dropped at once may be more.
          for (const c of made) expect(c.limit).toBe(BATCH)
          const removed = (kind: RemovalCall["kind"]) =>
            made.filter((c) => c.kind === kind).reduce((n, c) => n + c.removed, 0)
          expect(removed("deliveries")).toBeGreaterThanOrEqual(13)
          expect(removed("events")).toBeGreaterThanOrEqual(13)
          expect(made.filter((c) => c.removed === BATCH).length).toBeGreaterThanOrEqual(3)
          made.forEach((c, i) => {
            if (c.removed >= BATCH) expect(made[i + 1]?.kind).toBe(c.kind)
          })

          // The old pending delivery kept its event: resumed, it is sent with it, and then goes too.
          yield* webhooks.updateEndpoint(partnerId, paused.id, { active: true })
          yield* sim.runDue
          const sent = (yield* receiver.received).filter((r) => r.url === pausedUrl)
          expect(sent.map((r) => [r.headers["X-Service-Event-Id"], JSON.parse(r.body).eventId])).toEqual([
            [waiting, waiting]
          ])
          expect(counted(yield* statusesOf(partnerId))).toEqual({ delivered: 4 })
          yield* sim.advance(2 * HOUR)
          expect(counted(yield* statusesOf(partnerId))).toEqual({ delivered: 3 })
          // The young ones go when they reach the age.
          yield* sim.advance(20 * DAY)
          expect(yield* statusesOf(partnerId)).toEqual([])
        })
    )

    it.effect("an event is kept while a delivery needs it; once removed, its id is free again", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0 + 200 * DAY)
        const webhooks = yield* Webhooks.Webhooks
        const sim = yield* Simulation
        const events = yield* EventStore
        const partnerId = testPartner(`p_${uuid()}`)
        yield* webhooks.createEndpoint(partnerId, { url: newUrl() })
        const at = T0 + 200 * DAY
        const event = {
          partnerId,
          id: uuid(),
          type: "webhook.test" as const,
          occurredAt: at,
          payload: "{}"
        }
        expect(yield* events.appendEvent(event, { _tag: "Subscribers" }, at)).toBe(1)
        // Written once: the same id again changes nothing while the event is kept.
        expect(yield* events.appendEvent(event, { _tag: "Subscribers" }, at)).toBe(0)
        yield* sim.advance(29 * DAY)
        expect(yield* events.appendEvent(event, { _tag: "Subscribers" }, at)).toBe(0)
        yield* sim.advance(2 * DAY)
        expect(yield* statusesOf(partnerId)).toEqual([])
        // Event and delivery gone, the id is unknown to the store again.
        expect(yield* events.appendEvent(event, { _tag: "Subscribers" }, at)).toBe(1)
      })
    )

    it.effect("the sweep runs once an interval; the simulation wakes for it when the oldest event expires", () =>
      Effect.gen(function* () {
        const at = T0 + 400 * DAY
        yield* TestClock.setTime(at)
        const retention = yield* Webhooks.WebhookRetention
        const store = yield* WebhookRetentionStore
        const webhooks = yield* Webhooks.Webhooks
        const sim = yield* Simulation
        const partnerId = testPartner(`p_${uuid()}`)
        const endpoint = yield* webhooks.createEndpoint(partnerId, { url: newUrl() })
        yield* webhooks.sendTest(partnerId, endpoint.id)
        // This interval's sweep has run: everything older is gone, and no second sweep runs in it.
        yield* sim.runDue
        expect(yield* retention.sweepDue).toBeUndefined()
        // When the event counts as written for retention: at its occurrence, or as late as the end of
        // its day for a store that drops history by day.
        const oldest = yield* store.oldestEventAt()
        expect(oldest).toBeGreaterThanOrEqual(at)
        expect(oldest).toBeLessThan(at + DAY)
        const expires = oldest ?? at
        // The first sweep after that instant is 30 days past is on the next hour (T0 is on the hour).
        const firstSweep = Math.ceil((expires + 30 * DAY + 1) / HOUR) * HOUR
        expect(yield* retention.nextSweepAt).toBe(firstSweep)
        yield* TestClock.setTime(at + HOUR)
        expect((yield* retention.sweepDue)?.before).toBe(at - 30 * DAY + HOUR)
        expect(yield* retention.sweepDue).toBeUndefined()
        expect(yield* store.oldestEventAt()).toBe(oldest)
        // Up to that instant the sweeps leave it; the first after takes it.
        yield* sim.advance(firstSweep - HOUR - (at + HOUR))
        expect(yield* statusesOf(partnerId)).toEqual(["delivered"])
        yield* sim.advance(HOUR)
        expect(yield* statusesOf(partnerId)).toEqual([])
        expect(yield* store.oldestEventAt()).toBeUndefined()
        expect(yield* retention.nextSweepAt).toBeUndefined()
      })
    )
  })
}

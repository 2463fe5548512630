/**
 * Bulk recovery (`Webhooks.recover`, `POST /v1/webhooks/endpoints/{id}/recover`) on every store,
 * driven by the simulation kit under TestClock: which deliveries a window requeues, the replay
 * rules each follows, the per-call limit and `remaining`, the endpoint and window codes, and an
 * outage: a receiver down until 100 deliveries are dead-lettered, then one call delivers each
 * exactly once more.
 */
import { randomUUID as uuid } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import { Ids, Time, Webhooks } from "@frank/core"
import { type EngineStores, ScriptedReceiver, Simulation, SimulationEngine, testPartner } from "@frank/core/testing"
import { Effect, Either, type Layer, TestClock } from "effect"
import { DeliveryLog } from "@frank/core/stores"

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const T0 = Date.UTC(2026, 10, 1, 10, 0, 0)
/** Longer than the whole retry schedule (8 h 36 min): every failing delivery is dead-lettered by then. */
const SCHEDULE = 9 * HOUR

const newPartner = () => testPartner(`p_${uuid()}`)
const newUrl = () => `https://recover-${uuid().slice(0, 8)}.example/hook`

const setup = Effect.gen(function* () {
  yield* TestClock.setTime(T0)
  const webhooks = yield* Webhooks.Webhooks
  const receiver = yield* ScriptedReceiver
  const sim = yield* Simulation
  const partnerId = newPartner()
  const url = newUrl()
  const endpoint = yield* webhooks.createEndpoint(partnerId, { url })
  return { webhooks, receiver, sim, partnerId, url, endpoint }
})

const deliveriesOf = (partnerId: Ids.PartnerId) =>
  Effect.flatMap(Webhooks.Webhooks, (w) =>
    Effect.map(w.listDeliveries(partnerId, {}, 100, undefined), (p) => [...p.deliveries].reverse())
  )

/** The delivery of each webhook.test event `sendTest` answered, in the order given. */
const byEvent = (ds: ReadonlyArray<Webhooks.DeliveryRecord>, eventIds: ReadonlyArray<string>) =>
  eventIds.map((id) => ds.find((d) => d.eventId === id) as Webhooks.DeliveryRecord)

export const webhookRecoveryContract = (engine: string, stores: Layer.Layer<EngineStores, unknown>) => {
  layer(SimulationEngine({ stores }), { timeout: 180_000 })(`webhook recovery on ${engine}`, (it) => {
    it.effect(
      "requeues the window's dead-lettered and uncertain deliveries by the replay rules; the rest stay as they are",
      () =>
        Effect.gen(function* () {
          const { webhooks, receiver, sim, partnerId, url, endpoint } = yield* setup
          // #1 crashes mid-request (uncertain), #2 fails six times (dead-lettered), #3 is delivered,
          // #4 dead-letters too but was created at the window's end, and the other endpoint's fails.
          yield* receiver.script(url, ["crash"])
          const e1 = (yield* webhooks.sendTest(partnerId, endpoint.id)).event.id
          yield* sim.advance(2 * MINUTE)
          yield* receiver.script(url, [503, 503, 503, 503, 503, 503])
          const e2 = (yield* webhooks.sendTest(partnerId, endpoint.id)).event.id
          yield* sim.advance(SCHEDULE)
          const e3 = (yield* webhooks.sendTest(partnerId, endpoint.id)).event.id
          yield* sim.advance(MINUTE)
          const until = T0 + 2 * MINUTE + SCHEDULE + 2 * MINUTE
          yield* sim.advance(MINUTE)
          yield* receiver.script(url, [500, 500, 500, 500, 500, 500])
          const e4 = (yield* webhooks.sendTest(partnerId, endpoint.id)).event.id
          yield* sim.runDue
          // A second endpoint's failures are not this endpoint's to recover.
          const otherUrl = newUrl()
          yield* receiver.script(otherUrl, [503, 503, 503, 503, 503, 503])
          const other = yield* webhooks.createEndpoint(partnerId, { url: otherUrl })
          const eOther = (yield* webhooks.sendTest(partnerId, other.id)).event.id
          yield* sim.advance(SCHEDULE)

          const before = byEvent(yield* deliveriesOf(partnerId), [e1, e2, e3, e4, eOther])
          expect(before.map((d) => d.status)).toEqual([
            "uncertain",
            "dead_lettered",
            "delivered",
            "dead_lettered",
            "dead_lettered"
          ])
          // e4 dead-lettered at the window's end; [since, until) leaves it out.
          expect(before[3]?.createdAt).toBe(until)
          const result = yield* webhooks.recover(partnerId, endpoint.id, {
            since: Time.iso(T0),
            until: Time.iso(until)
          })
          expect(result).toEqual({ requeued: 2, remaining: 0 })
          const now = until + SCHEDULE
          const requeued = byEvent(yield* deliveriesOf(partnerId), [e1, e2, e3, e4, eOther])
          // One more attempt each, counted after the earlier ones.
          expect(requeued.map((d) => [d.status, d.attempts, d.nextAttemptAt])).toEqual([
            ["pending", 1, now],
            ["pending", 6, now],
            ["delivered", 1, null],
            ["dead_lettered", 6, null],
            ["dead_lettered", 6, null]
          ])

          const sent = (yield* receiver.received).length
          yield* sim.runDue
          const got = (yield* receiver.received).slice(sent)
          // The same event ids, once each; attempts continue in the delivery's history.
          expect(got.map((r) => r.headers["X-Service-Event-Id"]).sort()).toEqual([e1, e2].sort())
          const after = byEvent(yield* deliveriesOf(partnerId), [e1, e2])
          expect(after.map((d) => [d.status, d.attempts])).toEqual([
            ["delivered", 2],
            ["delivered", 7]
          ])
          expect(after[0]?.responseCodes).toEqual([null, 200])
          expect(after[1]?.responseCodes).toEqual([503, 503, 503, 503, 503, 503, 200])
        })
    )

    it.effect("calling again requeues nothing already queued; since is inclusive, until exclusive", () =>
      Effect.gen(function* () {
        const { webhooks, receiver, sim, partnerId, url, endpoint } = yield* setup
        yield* receiver.script(
          url,
          Array.from({ length: 18 }, () => 503)
        )
        for (let i = 0; i < 3; i++) {
          yield* webhooks.sendTest(partnerId, endpoint.id)
          yield* sim.advance(MINUTE)
        }
        yield* sim.advance(SCHEDULE)
        const ds = yield* deliveriesOf(partnerId)
        expect(ds.map((d) => [d.status, d.createdAt - T0])).toEqual([
          ["dead_lettered", 0],
          ["dead_lettered", MINUTE],
          ["dead_lettered", 2 * MINUTE]
        ])
        // Exactly the middle one: created at since, and the next one at until.
        const middle = { since: Time.iso(T0 + MINUTE), until: Time.iso(T0 + 2 * MINUTE) }
        expect(yield* webhooks.recover(partnerId, endpoint.id, middle)).toEqual({ requeued: 1, remaining: 0 })
        expect(yield* webhooks.recover(partnerId, endpoint.id, middle)).toEqual({ requeued: 0, remaining: 0 })
        // Without until the window ends now; the middle one is queued already.
        expect(yield* webhooks.recover(partnerId, endpoint.id, { since: Time.iso(T0) })).toEqual({
          requeued: 2,
          remaining: 0
        })
        expect(yield* webhooks.recover(partnerId, endpoint.id, { since: Time.iso(T0) })).toEqual({
          requeued: 0,
          remaining: 0
        })
        yield* sim.runDue
        expect((yield* deliveriesOf(partnerId)).map((d) => d.status)).toEqual(["delivered", "delivered", "delivered"])
        expect(yield* webhooks.recover(partnerId, endpoint.id, { since: Time.iso(T0) })).toEqual({
          requeued: 0,
          remaining: 0
        })
      })
    )

    it.effect("a call takes the oldest first up to its limit; remaining counts the rest", () =>
      Effect.gen(function* () {
        const { webhooks, receiver, sim, partnerId, url, endpoint } = yield* setup
        expect(Webhooks.MAX_RECOVERED_PER_CALL).toBe(10_000)
        yield* receiver.script(
          url,
          Array.from({ length: 5 * 6 }, () => 503)
        )
        for (let i = 0; i < 5; i++) {
          yield* webhooks.sendTest(partnerId, endpoint.id)
          yield* sim.advance(MINUTE)
        }
        yield* sim.advance(SCHEDULE)
        const ds = yield* deliveriesOf(partnerId)
        expect(ds.every((d) => d.status === "dead_lettered")).toBe(true)
        // The service's limit is 10,000 a call; the store's takes any, here 2.
        const store = yield* DeliveryLog
        const now = T0 + 5 * MINUTE + SCHEDULE
        const window = { since: T0, until: now }
        const rules = { endpoint: Webhooks.endpointReplayRule, delivery: Webhooks.replayRule(now) }
        const take = (limit: number) =>
          Effect.map(store.recoverDeliveries(partnerId, endpoint.id, window, limit, rules, now), (r) =>
            r !== undefined && Either.isRight(r) ? r.right : r
          )
        expect(yield* take(2)).toEqual({ requeued: 2, remaining: 3 })
        let listed = yield* deliveriesOf(partnerId)
        expect(listed.map((d) => d.status)).toEqual([
          "pending",
          "pending",
          "dead_lettered",
          "dead_lettered",
          "dead_lettered"
        ])
        expect(yield* take(2)).toEqual({ requeued: 2, remaining: 1 })
        expect(yield* take(2)).toEqual({ requeued: 1, remaining: 0 })
        listed = yield* deliveriesOf(partnerId)
        expect(listed.every((d) => d.status === "pending")).toBe(true)
      })
    )

    it.effect("codes: unknown or foreign endpoint 404, paused and deleted 409, nothing requeued", () =>
      Effect.gen(function* () {
        const { webhooks, receiver, sim, partnerId, url, endpoint } = yield* setup
        yield* receiver.script(url, [503, 503, 503, 503, 503, 503])
        yield* webhooks.sendTest(partnerId, endpoint.id)
        yield* sim.advance(SCHEDULE)
        const window = { since: Time.iso(T0) }
        const fails = (p: Ids.PartnerId, id: Ids.EndpointId) => Effect.flip(webhooks.recover(p, id, window))
        expect(yield* fails(partnerId, Ids.EndpointId.make(uuid()))).toBeInstanceOf(Webhooks.EndpointNotFound)
        // Another partner's endpoint is answered as a missing one.
        expect(yield* fails(newPartner(), endpoint.id)).toBeInstanceOf(Webhooks.EndpointNotFound)
        yield* webhooks.updateEndpoint(partnerId, endpoint.id, { active: false })
        const paused = yield* fails(partnerId, endpoint.id)
        expect(paused).toBeInstanceOf(Webhooks.DeliveryEndpointInactive)
        expect(paused).toMatchObject({ code: "DELIVERY_ENDPOINT_INACTIVE", status: 409 })
        yield* webhooks.deleteEndpoint(partnerId, endpoint.id)
        const deleted = yield* fails(partnerId, endpoint.id)
        expect(deleted).toBeInstanceOf(Webhooks.DeliveryEndpointDeleted)
        expect(deleted).toMatchObject({ code: "DELIVERY_ENDPOINT_DELETED", status: 409 })
        expect((yield* deliveriesOf(partnerId)).map((d) => d.status)).toEqual(["dead_lettered"])
      })
    )

    it.effect("a bad window answers every violation at once: format, order, length, retention", () =>
      Effect.gen(function* () {
        const { webhooks, partnerId, endpoint } = yield* setup
        yield* TestClock.setTime(T0 + 40 * DAY)
        const now = T0 + 40 * DAY
        const invalid = (since: string, until?: string) =>
          Effect.flatMap(
            Effect.flip(webhooks.recover(partnerId, endpoint.id, until === undefined ? { since } : { since, until })),
            (e) =>
              e instanceof Webhooks.RecoveryWindowInvalid
                ? Effect.succeed(e)
                : Effect.dieMessage(`unexpected ${e._tag}`)
          )
        const both = yield* invalid("yesterday", "2026-11-01T10:00:00")
        expect(both).toMatchObject({ code: "VALIDATION_FAILED", status: 400 })
        expect(both.messages).toEqual([
          expect.stringMatching(/^since: must be an ISO 8601 date-time with a time zone/),
          expect.stringMatching(/^until: must be an ISO 8601 date-time with a time zone/)
        ])
        const reversed = yield* invalid(Time.iso(now - DAY), Time.iso(now - 2 * DAY))
        expect(reversed.messages).toEqual(["since: must be before until"])
        const long = yield* invalid(Time.iso(now - 15 * DAY), Time.iso(now))
        expect(long.messages).toEqual(["the window from since to until must not exceed 14 days"])
        // 30 days kept (the default): a window reaching further back is refused, with the rest.
        const past = yield* invalid(Time.iso(now - 31 * DAY), Time.iso(now - 15 * DAY))
        expect(past.messages).toEqual([
          `since: must not be before ${Time.iso(now - 30 * DAY)}: deliveries are kept for 30 days, older ones are gone`,
          "the window from since to until must not exceed 14 days"
        ])
        const future = yield* invalid(Time.iso(now + MINUTE))
        expect(future.messages).toEqual(["since: must be in the past"])
        // The edges themselves are fine: 14 days exactly, starting at the retention horizon.
        expect(
          yield* webhooks.recover(partnerId, endpoint.id, {
            since: Time.iso(now - 30 * DAY),
            until: Time.iso(now - 16 * DAY)
          })
        ).toEqual({ requeued: 0, remaining: 0 })
      })
    )

    it.effect(
      "outage: the receiver is down until 100 deliveries are dead-lettered; one recovery delivers each exactly once more",
      () =>
        Effect.gen(function* () {
          const { webhooks, receiver, sim, partnerId, url, endpoint } = yield* setup
          const count = 100
          yield* receiver.script(
            url,
            Array.from({ length: count * 6 }, () => 503)
          )
          const events: Array<string> = []
          for (let i = 0; i < count; i++) events.push((yield* webhooks.sendTest(partnerId, endpoint.id)).event.id)
          yield* sim.advance(SCHEDULE)
          const log = Effect.map(webhooks.listDeliveries(partnerId, {}, 100, undefined), (p) => p.deliveries)
          const dead = yield* log
          expect(dead).toHaveLength(count)
          expect(dead.every((d) => d.status === "dead_lettered" && d.attempts === 6)).toBe(true)
          const failed = yield* receiver.received
          expect(failed.filter((r) => r.url === url)).toHaveLength(count * 6)

          // The receiver is back (its script is used up: 200 from now on).
          expect(yield* webhooks.recover(partnerId, endpoint.id, { since: Time.iso(T0) })).toEqual({
            requeued: count,
            remaining: 0
          })
          yield* sim.advance(HOUR)
          const after = (yield* receiver.received).slice(failed.length).filter((r) => r.url === url)
          const ids = after.map((r) => r.headers["X-Service-Event-Id"])
          expect(ids).toHaveLength(count)
          expect([...ids].sort()).toEqual([...events].sort())
          expect(after.every((r) => r.answer === 200)).toBe(true)
          const delivered = yield* log
          expect(delivered.every((d) => d.status === "delivered" && d.responseCodes.length === 7)).toBe(true)
          expect(yield* webhooks.recover(partnerId, endpoint.id, { since: Time.iso(T0) })).toEqual({
            requeued: 0,
            remaining: 0
          })
        })
    )
  })
}

/**
 * The endpoint-health contract on every store pair (memory, PGlite, PostgreSQL), driven by the
 * simulation kit under TestClock over days: lastSuccessAt and failingSince follow the outcomes,
 * the rule (5 days, 10 dead letters by default) pauses an endpoint exactly at its thresholds and
 * not before, the pause emits `webhook.endpoint.disabled` to the partner's other subscribed
 * endpoints and not to the paused one, and PATCH `active: true` re-enables it with a fresh span.
 */
import { randomUUID as uuid } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import { type Ids, Webhooks } from "@frank/core"
import { type EngineStores, ScriptedReceiver, Simulation, SimulationEngine, testPartner } from "@frank/core/testing"
import { Effect, type Layer, TestClock } from "effect"
import { eventViolations } from "../support/eventCatalogCheck.js"
import { DeliveryQueue } from "@frank/core/stores"

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
/** The retry schedule's span: an event sent at t dead-letters at t + 8 h 36 min. */
const TO_DEAD_LETTER = 516 * MINUTE
const T0 = Date.UTC(2026, 10, 1, 10, 0, 0)

const newPartner = () => testPartner(`p_${uuid()}`)
const newUrl = () => `https://health-${uuid().slice(0, 8)}.example/hook`
const failing = Array.from({ length: 200 }, () => 503)

const endpointOf = (partnerId: Ids.PartnerId, id: Ids.EndpointId) =>
  Effect.flatMap(Webhooks.Webhooks, (w) =>
    Effect.map(w.listEndpoints(partnerId), (es) => es.find((e) => e.id === id) as Webhooks.WebhookEndpoint)
  )

/** Registers an endpoint at `url` answering with `answers` first. */
const endpointAt = (partnerId: Ids.PartnerId, answers: ReadonlyArray<number>, eventTypes?: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const url = newUrl()
    yield* (yield* ScriptedReceiver).script(url, answers)
    const webhooks = yield* Webhooks.Webhooks
    return yield* webhooks.createEndpoint(partnerId, eventTypes === undefined ? { url } : { url, eventTypes })
  })

/** Sends `n` test events to the endpoint now. */
const sendTests = (partnerId: Ids.PartnerId, id: Ids.EndpointId, n: number) =>
  Effect.flatMap(Webhooks.Webhooks, (w) => Effect.repeatN(w.sendTest(partnerId, id), n - 1))

/** The bodies of the `webhook.endpoint.disabled` events that reached `url`. */
const disabledEventsAt = (url: string) =>
  Effect.map(
    Effect.flatMap(ScriptedReceiver, (r) => r.received),
    (all) =>
      all
        .filter((r) => r.url === url && r.headers["X-Service-Event"] === "webhook.endpoint.disabled")
        .map((r) => JSON.parse(r.body))
  )

export const endpointHealthContract = (engine: string, stores: Layer.Layer<EngineStores, unknown>) => {
  layer(SimulationEngine({ stores }), { timeout: 120_000 })(`endpoint health on ${engine}`, (it) => {
    it.effect("lastSuccessAt and failingSince follow the outcomes; successes within a second write once", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const sim = yield* Simulation
        const partnerId = newPartner()
        const endpoint = yield* endpointAt(partnerId, [200, 200, ...failing.slice(0, 6), 200])
        const health = Effect.map(endpointOf(partnerId, endpoint.id), (e) => e.health)
        expect(yield* health).toMatchObject({ lastSuccessAt: null, failingSince: null, disabledAt: null })

        yield* sendTests(partnerId, endpoint.id, 1)
        yield* sim.runDue
        expect(yield* health).toMatchObject({ lastSuccessAt: T0, failingSince: null })
        // Half a second later: the recorded success stands for this one too.
        yield* TestClock.adjust(500)
        yield* sendTests(partnerId, endpoint.id, 1)
        yield* sim.runDue
        expect((yield* health).lastSuccessAt).toBe(T0)

        // Six failures in a row: dead-lettered 8 h 36 min later; that is when the failing span begins.
        yield* TestClock.setTime(T0 + HOUR)
        yield* sendTests(partnerId, endpoint.id, 1)
        yield* sim.advance(TO_DEAD_LETTER - 1000)
        expect((yield* health).failingSince).toBeNull()
        yield* sim.advance(1000)
        expect(yield* health).toMatchObject({ lastSuccessAt: T0, failingSince: T0 + HOUR + TO_DEAD_LETTER })

        // A success ends the span.
        yield* sim.advance(HOUR)
        const at = T0 + 2 * HOUR + TO_DEAD_LETTER
        yield* sendTests(partnerId, endpoint.id, 1)
        yield* sim.runDue
        expect(yield* health).toMatchObject({ lastSuccessAt: at, failingSince: null, disabledAt: null })
      })
    )

    it.effect("one outcome write with a dead letter, a success and a dead letter: only the last one counts", () =>
      Effect.gen(function* () {
        // Earlier than every other case's deliveries, so the claim below takes only this case's.
        const at = T0 - 30 * DAY
        yield* TestClock.setTime(at)
        const store = yield* DeliveryQueue
        const partnerId = newPartner()
        const endpoint = yield* endpointAt(partnerId, [])
        yield* sendTests(partnerId, endpoint.id, 3)
        const claims = yield* store.claimDue(at, 60_000, 10, `health-${uuid()}`)
        expect(claims.map((c) => c.partnerId)).toEqual([partnerId, partnerId, partnerId])
        const outcome = (i: number, next: Webhooks.FinishedAttempt["next"]): Webhooks.FinishedAttempt => ({
          claim: claims[i] as Webhooks.ClaimedDelivery,
          next,
          attempt: { attempt: 1, startedAt: at + 1000 * i, durationMs: 250, responseStatus: null, error: "x" },
          outcome: "Answered"
        })
        const deadLetter = { status: "dead_lettered", attempts: 6, nextAttemptAt: null, leaseUntil: null } as const
        const delivered = { status: "delivered", attempts: 1, nextAttemptAt: null, leaseUntil: null } as const
        const recorded = yield* store.finishAttempts(
          [outcome(0, deadLetter), outcome(1, delivered), outcome(2, deadLetter)],
          at + 3000
        )
        expect(recorded).toHaveLength(3)
        expect((yield* endpointOf(partnerId, endpoint.id)).health).toEqual({
          lastSuccessAt: at + 1250,
          failingSince: at + 2250,
          disabledAt: null,
          disabledReason: null,
          strikes: 1,
          strikesSince: at + 2250
        })
      })
    )

    it.effect(
      "paused at exactly 5 days after the first of 10 dead letters; emitted to the other subscribed endpoints only",
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(T0)
          const webhooks = yield* Webhooks.Webhooks
          const sim = yield* Simulation
          const partnerId = newPartner()
          const broken = yield* endpointAt(partnerId, failing, ["billing.settled"])
          const all = yield* endpointAt(partnerId, [])
          const named = yield* endpointAt(partnerId, [], ["webhook.endpoint.disabled"])
          const settledOnly = yield* endpointAt(partnerId, [], ["billing.settled"])
          const elsewhere = yield* endpointAt(newPartner(), [])

          yield* sendTests(partnerId, broken.id, 10)
          const since = T0 + TO_DEAD_LETTER
          yield* sim.advance(TO_DEAD_LETTER)
          expect((yield* endpointOf(partnerId, broken.id)).health).toMatchObject({ failingSince: since, strikes: 10 })

          yield* sim.advance(5 * DAY - 1000)
          expect((yield* endpointOf(partnerId, broken.id)).active).toBe(true)
          yield* sim.advance(1000)
          const paused = yield* endpointOf(partnerId, broken.id)
          expect(paused.active).toBe(false)
          expect(paused.health).toMatchObject({
            disabledAt: since + 5 * DAY,
            disabledReason: "failing",
            failingSince: since
          })

          // One event, delivered to the partner's other endpoints subscribed to it.
          const expected = { endpointId: broken.id, url: broken.url, failingSince: new Date(since).toISOString() }
          for (const e of [all, named]) {
            const got = yield* disabledEventsAt(e.url)
            expect(got.map((b) => b.data)).toEqual([expected])
            expect(got[0].partnerId).toBe(partnerId)
          }
          for (const e of [broken, settledOnly, elsewhere]) expect(yield* disabledEventsAt(e.url)).toEqual([])
          const deliveries = yield* webhooks.listDeliveries(partnerId, {}, 100, undefined)
          const ofEvent = deliveries.deliveries.filter((d) => d.eventType === "webhook.endpoint.disabled")
          expect(ofEvent.map((d) => d.endpointId).sort()).toEqual([all.id, named.id].sort())
          expect(ofEvent.every((d) => d.status === "delivered")).toBe(true)

          // Nothing more is due for it: a sweep later changes nothing and emits nothing more.
          yield* sim.advance(DAY)
          expect((yield* endpointOf(partnerId, broken.id)).health.disabledAt).toBe(since + 5 * DAY)
          expect(yield* disabledEventsAt(all.url)).toHaveLength(1)
          // The catalog describes everything that was sent.
          const bodies = (yield* (yield* ScriptedReceiver).received).filter((r) =>
            [broken, all, named].some((e) => e.url === r.url)
          )
          expect(bodies.length).toBeGreaterThan(60)
          for (const r of bodies) expect(eventViolations(r.body)).toEqual([])
        })
    )

    it.effect("9 dead letters are not enough, however long; the 10th pauses the endpoint at once", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const sim = yield* Simulation
        const partnerId = newPartner()
        const endpoint = yield* endpointAt(partnerId, failing)
        yield* sendTests(partnerId, endpoint.id, 9)
        yield* sim.advance(TO_DEAD_LETTER + 6 * DAY)
        expect((yield* endpointOf(partnerId, endpoint.id)).active).toBe(true)
        yield* sendTests(partnerId, endpoint.id, 1)
        const tenth = (yield* TestClock.currentTimeMillis) + TO_DEAD_LETTER
        yield* sim.advance(TO_DEAD_LETTER - 1000)
        expect((yield* endpointOf(partnerId, endpoint.id)).active).toBe(true)
        yield* sim.advance(1000)
        const paused = yield* endpointOf(partnerId, endpoint.id)
        expect(paused.health).toMatchObject({
          disabledAt: tenth,
          disabledReason: "failing",
          failingSince: T0 + TO_DEAD_LETTER
        })
      })
    )

    it.effect("a success within the 5 days ends the span: no pause", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const sim = yield* Simulation
        const partnerId = newPartner()
        // Ten events fail all six attempts; then the endpoint answers 200.
        const endpoint = yield* endpointAt(partnerId, failing.slice(0, 60))
        yield* sendTests(partnerId, endpoint.id, 10)
        yield* sim.advance(TO_DEAD_LETTER + 4 * DAY)
        yield* sendTests(partnerId, endpoint.id, 1)
        yield* sim.advance(3 * DAY)
        const e = yield* endpointOf(partnerId, endpoint.id)
        expect(e.active).toBe(true)
        expect(e.health).toMatchObject({ failingSince: null, disabledReason: null, strikes: 0 })
        expect(e.health.lastSuccessAt).toBe(T0 + TO_DEAD_LETTER + 4 * DAY)
      })
    )

    it.effect("PATCH active: true re-enables a paused endpoint, clears the reason and starts a fresh span", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const webhooks = yield* Webhooks.Webhooks
        const sim = yield* Simulation
        const partnerId = newPartner()
        const endpoint = yield* endpointAt(partnerId, failing.slice(0, 60))
        yield* sendTests(partnerId, endpoint.id, 10)
        yield* sim.advance(TO_DEAD_LETTER + 5 * DAY)
        expect((yield* endpointOf(partnerId, endpoint.id)).health.disabledReason).toBe("failing")
        // Paused: new events and tests skip it.
        expect((yield* Effect.flip(webhooks.sendTest(partnerId, endpoint.id)))._tag).toBe("EndpointInactive")

        const reenabled = yield* webhooks.updateEndpoint(partnerId, endpoint.id, { active: true })
        expect(reenabled.active).toBe(true)
        expect(reenabled.health).toMatchObject({
          disabledAt: null,
          disabledReason: null,
          failingSince: T0 + TO_DEAD_LETTER,
          strikes: 0
        })
        // No success yet, but the old dead letters no longer count: the next sweep leaves it active.
        yield* sim.advance(DAY)
        expect((yield* endpointOf(partnerId, endpoint.id)).active).toBe(true)

        // A pause by hand records when, without a reason; resuming clears it.
        const now = yield* TestClock.currentTimeMillis
        const paused = yield* webhooks.updateEndpoint(partnerId, endpoint.id, { active: false })
        expect(paused.health).toMatchObject({ disabledAt: now, disabledReason: null })
        yield* webhooks.updateEndpoint(partnerId, endpoint.id, { active: true })
        yield* sendTests(partnerId, endpoint.id, 1)
        yield* sim.runDue
        const healthy = yield* endpointOf(partnerId, endpoint.id)
        expect(healthy.health).toMatchObject({ lastSuccessAt: now, failingSince: null, disabledAt: null })
      })
    )
  })

  layer(SimulationEngine({ stores, disableFailing: { afterMs: 2 * DAY, minFailures: 3 } }), { timeout: 120_000 })(
    `endpoint health with other thresholds on ${engine}`,
    (it) => {
      it.effect("the rule's thresholds are settings: 2 days and 3 dead letters", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(T0)
          const sim = yield* Simulation
          const partnerId = newPartner()
          const endpoint = yield* endpointAt(partnerId, failing)
          yield* sendTests(partnerId, endpoint.id, 3)
          yield* sim.advance(TO_DEAD_LETTER + 2 * DAY - 1000)
          expect((yield* endpointOf(partnerId, endpoint.id)).active).toBe(true)
          yield* sim.advance(1000)
          expect((yield* endpointOf(partnerId, endpoint.id)).health.disabledAt).toBe(T0 + TO_DEAD_LETTER + 2 * DAY)
        })
      )
    }
  )

  layer(SimulationEngine({ stores, disableFailing: false }), { timeout: 120_000 })(
    `endpoint health with the rule off on ${engine}`,
    (it) => {
      it.effect("disableFailing: false never pauses, and still tracks the failing span", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(T0)
          const sim = yield* Simulation
          const partnerId = newPartner()
          const endpoint = yield* endpointAt(partnerId, failing)
          yield* sendTests(partnerId, endpoint.id, 12)
          yield* sim.advance(TO_DEAD_LETTER + 10 * DAY)
          const e = yield* endpointOf(partnerId, endpoint.id)
          expect(e.active).toBe(true)
          expect(e.health.failingSince).toBe(T0 + TO_DEAD_LETTER)
        })
      )
    }
  )
}

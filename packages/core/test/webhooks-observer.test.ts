/**
 * The worker's reports to an optional DeliveryObserver (the host turns them into metrics): each
 * written outcome once, with its result and kind of answer, and the leases a sweep expired.
 */
import { expect, it } from "@effect/vitest"
import { Webhooks } from "@frank/core"
import { type ScriptedAnswer, ScriptedReceiver, Simulation, SimulationEngine, testPartner } from "@frank/core/testing"
import { Context, Effect, Layer, Logger, Ref, TestClock } from "effect"

const T0 = Date.UTC(2026, 10, 1)

class Reports extends Context.Tag("test/Reports")<Reports, Ref.Ref<ReadonlyArray<string>>>() {}
const Recording = Layer.effectContext(
  Effect.map(Ref.make<ReadonlyArray<string>>([]), (log) =>
    Context.make(Reports, log).pipe(
      Context.add(Webhooks.DeliveryObserver, {
        attemptsRecorded: (finished: ReadonlyArray<Webhooks.FinishedAttempt>) =>
          Ref.update(log, (l) => [
            ...l,
            `recorded ${finished.map((f) => `${f.outcome}/${f.attempt.responseStatus}→${f.next.status}`).join(", ")}`
          ]),
        leasesExpired: (count: number) => Ref.update(log, (l) => [...l, `expired ${count}`])
      })
    )
  )
)

/** At T0, an endpoint whose receiver answers `answers`, sent one test event; then ten minutes of the worker. */
const testEventAnswered = (answers: ReadonlyArray<ScriptedAnswer>) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(T0)
    const webhooks = yield* Webhooks.Webhooks
    const sim = yield* Simulation
    const url = "https://receiver.example/observed"
    yield* (yield* ScriptedReceiver).script(url, answers)
    const endpoint = yield* webhooks.createEndpoint(testPartner("partner-1"), { url })
    yield* webhooks.sendTest(testPartner("partner-1"), endpoint.id)
    yield* sim.advance("10 minutes")
    return { webhooks, sim, endpoint }
  })

it.effect("reports every written outcome once and the leases that ran out", () =>
  Effect.gen(function* () {
    const { webhooks, sim, endpoint } = yield* testEventAnswered([503, "timeout", 200, "crash"])
    const reports = yield* Reports
    expect(yield* Ref.get(reports)).toEqual([
      "recorded Answered/503→pending",
      "recorded TimedOut/null→pending",
      "recorded Answered/200→delivered"
    ])
    // The worker dies mid-request: nothing is recorded, and the sweep after the lease expires it.
    yield* webhooks.sendTest(testPartner("partner-1"), endpoint.id)
    yield* sim.advance("5 minutes")
    expect((yield* Ref.get(reports)).slice(3)).toEqual(["expired 1"])
  }).pipe(Effect.provide(SimulationEngine().pipe(Layer.provideMerge(Recording))))
)

it.effect("an observer that dies does not stop the worker", () =>
  Effect.gen(function* () {
    const { webhooks } = yield* testEventAnswered([503, 200])
    const { deliveries } = yield* webhooks.listDeliveries(testPartner("partner-1"), {}, 10, undefined)
    expect(deliveries.map((d) => [d.status, d.responseCodes])).toEqual([["delivered", [503, 200]]])
  }).pipe(
    Effect.provide(
      SimulationEngine().pipe(
        Layer.provide(
          Layer.succeed(Webhooks.DeliveryObserver, {
            attemptsRecorded: () => Effect.dieMessage("observer bug"),
            leasesExpired: () => Effect.dieMessage("observer bug")
          })
        ),
        Layer.provide(Logger.remove(Logger.defaultLogger))
      )
    )
  )
)

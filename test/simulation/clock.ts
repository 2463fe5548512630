/**
 * The campaign's time is Effect's TestClock, one per seed (`underTestClock`), moved with the kit's
 * Simulation loop: the worker, the grant expiry and the task expiry sweep run at every instant something falls due,
 * and TestClock is set to each such instant in turn. Every move waits for the loop's fibers with three real `setTimeout`s,
 * which costs wall time but not CPU; seeds run side by side so one seed's waits overlap another's
 * work (docs/reliability.md, "Figures"). Nothing the campaign runs sleeps (the worker is driven
 * through `runDue`), so a move wakes no fiber.
 */
import { type Errors, Ledger, Tasks, Webhooks } from "@frank/core"
import { Clock, DefaultServices, Effect, identity, TestClock, TestContext } from "effect"

type Driven = Webhooks.DeliveryWorker | Tasks.TaskExpiry | Ledger.GrantExpiry

/** What is due now: grants, then task holds expire (their events go out at once), then the worker. */
const runDue = Effect.gen(function* () {
  yield* (yield* Ledger.GrantExpiry).sweep
  yield* (yield* Tasks.TaskExpiry).sweepDue
  return yield* (yield* Webhooks.DeliveryWorker).runDue
})

const earliest = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b)

const nextWakeAt = Effect.gen(function* () {
  const worker = yield* (yield* Webhooks.DeliveryWorker).nextWakeAt
  const tasks = earliest(worker, yield* (yield* Tasks.TaskExpiry).nextSweepAt)
  return earliest(tasks, yield* (yield* Ledger.GrantExpiry).nextSweepAt)
})

/** A guard against a store that never stops being due. */
const MAX_STEPS_PER_ADVANCE = 100_000

/** Moves TestClock forward by `ms`, running the worker at every instant something falls due on the way. */
export const advance = (ms: number): Effect.Effect<void, Errors.StoreError, Driven> =>
  Effect.gen(function* () {
    const target = (yield* Clock.currentTimeMillis) + ms
    // Runs in a row that left work due: one is a slow receiver moving the clock past a deadline
    // while the worker was busy (the next run takes it); more means the worker does not.
    let overdueRuns = 0
    for (let step = 0; step < MAX_STEPS_PER_ADVANCE; step++) {
      yield* runDue
      const now = yield* Clock.currentTimeMillis
      const next = yield* nextWakeAt
      if (next === undefined || next > target) break
      if (next <= now) {
        if (++overdueRuns > 2)
          return yield* Effect.dieMessage(`campaign stuck at ${now}: work due at ${next} that the worker does not take`)
        continue
      }
      overdueRuns = 0
      yield* TestClock.setTime(next)
    }
    // A slow receiver may have moved the clock past the target already.
    if ((yield* Clock.currentTimeMillis) < target) yield* TestClock.setTime(target)
    yield* runDue
  })

/** Moves forward by `ms` at once, then runs what is due (a suspended VM, an NTP step). */
export const jump = (ms: number): Effect.Effect<void, Errors.StoreError, Driven> =>
  Effect.zipRight(TestClock.adjust(ms), Effect.asVoid(runDue))

/** A receiver working while the worker waits: TestClock moves to `at` unless it is there already. */
export const passTo = (at: number): Effect.Effect<void> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => (now < at ? TestClock.setTime(at) : Effect.void))

/**
 * Runs `effect` on a TestClock of its own, starting at `start`. The caller keeps its clock: a
 * provided TestContext would otherwise stay the caller's clock after the run.
 */
export const underTestClock =
  (start: number) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.zipRight(TestClock.setTime(start), effect).pipe(
      Effect.provide(TestContext.TestContext),
      Effect.locallyWith(DefaultServices.currentServices, identity)
    )

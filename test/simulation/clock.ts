/**
 * The campaign's clock: a plain number the campaign moves, installed as Effect's Clock. It plays
 * TestClock's part in the kit's Simulation, with the same loop (run the worker at every instant
 * something falls due), but moving it costs nothing: TestClock waits for every fiber to suspend
 * with three real timers per move, which was most of the campaign's wall time.
 * Nothing the campaign runs sleeps (the worker is driven through `runDue`), so `sleep` never ends.
 */
import { DeliveryWorker, type StoreError } from "@frank/core"
import { Clock, Context, Effect, Layer } from "effect"

export interface SimClockShape {
  readonly clock: Clock.Clock
  readonly set: (ms: number) => void
  /** Moves forward by `ms`, running the worker at every instant something falls due on the way. */
  readonly advance: (ms: number) => Effect.Effect<void, StoreError, DeliveryWorker>
  /** Moves forward by `ms` at once, then runs what is due (a suspended VM, an NTP step). */
  readonly jump: (ms: number) => Effect.Effect<void, StoreError, DeliveryWorker>
}

export class SimClock extends Context.Tag("test/simulation/SimClock")<SimClock, SimClockShape>() {}

/** A guard against a store that never stops being due. */
const MAX_STEPS_PER_ADVANCE = 100_000

export const makeSimClock = (start: number): SimClockShape => {
  let now = start
  const clock: Clock.Clock = {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => now,
    currentTimeMillis: Effect.sync(() => now),
    unsafeCurrentTimeNanos: () => BigInt(now) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(now) * 1_000_000n),
    sleep: () => Effect.never
  }
  const advance = (ms: number) =>
    Effect.gen(function* () {
      const worker = yield* DeliveryWorker
      const target = now + ms
      // Runs in a row that left work due: one is a slow receiver moving the clock past a deadline
      // while the worker was busy (the next run takes it); more means the worker does not.
      let overdueRuns = 0
      for (let step = 0; step < MAX_STEPS_PER_ADVANCE; step++) {
        yield* worker.runDue
        const next = yield* worker.nextWakeAt
        if (next === undefined || next > target) break
        if (next <= now) {
          if (++overdueRuns > 2)
            return yield* Effect.dieMessage(
              `campaign stuck at ${now}: work due at ${next} that the worker does not take`
            )
          continue
        }
        overdueRuns = 0
        now = next
      }
      // A slow receiver may have moved the clock past the target already.
      now = Math.max(now, target)
      yield* worker.runDue
    })
  const jump = (ms: number) =>
    Effect.flatMap(DeliveryWorker, (worker) => {
      now += ms
      return worker.runDue
    })
  return {
    clock,
    set: (ms) => {
      now = ms
    },
    advance,
    jump: (ms) => Effect.asVoid(jump(ms))
  }
}

export const simClockLayer = (start: number) => Layer.sync(SimClock, () => makeSimClock(start))

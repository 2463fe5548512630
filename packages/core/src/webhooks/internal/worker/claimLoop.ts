/**
 * The long-lived claim loop. It claims when enough slots are free (a quarter, or any when idle)
 * and the writer keeps up, sweeps on schedule, and otherwise sleeps until a signal (an event
 * committed, slots freed, an outcome written), the next due time, or the poll interval.
 */
import { Clock, Duration, Effect } from "effect"
import type { StoreError } from "../../../StoreError.js"
import type { ClaimedDelivery } from "../../Delivery.js"
import { defaultWorkerConfig } from "../../WorkerConfig.js"
import type { WorkerLoad } from "./WorkerLoad.js"
import type { WorkerParts } from "./WorkerParts.js"

export const claimLoop = (
  parts: WorkerParts,
  load: WorkerLoad,
  claimAndStart: (limit: number) => Effect.Effect<ReadonlyArray<ClaimedDelivery>, StoreError>
): Effect.Effect<never, StoreError> =>
  Effect.gen(function* () {
    const { config, store, wakeup } = parts
    const sweepEveryMs = config.sweepIntervalMs ?? defaultWorkerConfig.sweepIntervalMs ?? 1_000
    const pause = (ms: number) => Effect.raceFirst(wakeup.await, Effect.sleep(Duration.millis(ms)))
    let nextSweepAt = 0
    let lastSweepAt = Number.NEGATIVE_INFINITY
    let claimingAgain = false
    for (;;) {
      const now = yield* Clock.currentTimeMillis
      if (now >= nextSweepAt) {
        yield* Effect.uninterruptible(parts.sweep)
        lastSweepAt = now
        nextSweepAt = now + sweepEveryMs
      }
      const wanted = Math.min(load.free, config.batchSize)
      const batch = wanted > 0 && load.claimable ? yield* claimAndStart(wanted) : undefined
      if (batch === undefined || batch.length > 0) claimingAgain = false
      // A full batch may mean more is due: go again.
      if (batch !== undefined && batch.length === wanted) continue
      if (batch === undefined) {
        // Slots are busy: an answer (or a write) signals; the sweep and poll still run on time.
        yield* pause(config.pollIntervalMs)
        continue
      }
      // Work was just claimed: the next poll comes soon enough for retries falling due meanwhile.
      const due = batch.length > 0 ? undefined : yield* Effect.uninterruptible(store.nextWakeAt())
      const at = yield* Clock.currentTimeMillis
      if (due !== undefined && due <= at && due > lastSweepAt) {
        // Due since the last sweep yet not claimed: an event committed after the claim's snapshot
        // (claiming again takes it; under a steady stream of events this is the common case) or
        // a lease that ran out (another instance died mid-request), which only the sweep takes.
        // So claim once more first, and sweep when that still leaves it.
        if (claimingAgain) nextSweepAt = at
        claimingAgain = !claimingAgain
        continue
      }
      claimingAgain = false
      // Overdue since before the last sweep: rows another instance holds or is claiming right now.
      // Polling for them with no pause would only load the database.
      yield* pause(due === undefined || due <= at ? config.pollIntervalMs : Math.min(config.pollIntervalMs, due - at))
    }
  })

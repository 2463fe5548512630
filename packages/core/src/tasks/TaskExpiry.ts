/**
 * The hold expiry sweep: tasks still queued or running at their `expiresAt` fail with
 * TASK_EXPIRED and their holds are refunded (row kind `task_hold_expired`), each in one
 * transaction with `task.failed`, `billing.refunded` and `task.refunded` (Tasks.expireDue). It
 * runs in bounded batches until nothing due is left, at most once per `sweepIntervalMs` (a minute
 * by default) counted from the epoch, the way webhook retention does.
 *
 * Two ways to drive it, as the delivery worker: `run` loops (a host forks it), `sweepDue` sweeps
 * if one is due at the current instant, which the simulation kit steps under TestClock, waking at
 * `nextSweepAt`.
 */
import { Clock, Context, Duration, Effect, Layer, Ref } from "effect"
import type { StoreError } from "../StoreError.js"
import { Tasks } from "./Tasks.js"

/** Tasks one batch expires at most: each is its own short transaction; the batch bounds one read. */
export const MAX_EXPIRY_BATCH = 1_000

export interface TaskExpiryConfig {
  /** How often a sweep runs; at most a minute in a host. */
  readonly sweepIntervalMs: number
  /** Tasks read and expired per batch; 1..MAX_EXPIRY_BATCH. */
  readonly batchSize: number
  /** Tasks expired at once within a batch (transactions of different partners run in parallel). */
  readonly concurrency: number
}

export const defaultTaskExpiryConfig: TaskExpiryConfig = { sweepIntervalMs: 60_000, batchSize: 500, concurrency: 4 }

/** What one sweep did. */
export interface ExpirySweep {
  readonly expired: number
  readonly batches: number
}

export interface TaskExpiryShape {
  /** Expires everything due now. */
  readonly sweep: Effect.Effect<ExpirySweep, StoreError>
  /** Sweeps unless this interval already had its sweep; undefined when it had. */
  readonly sweepDue: Effect.Effect<ExpirySweep | undefined, StoreError>
  /** The first sweep time at which an unfinished task is due; undefined when no task is unfinished. */
  readonly nextSweepAt: Effect.Effect<number | undefined, StoreError>
  /** Sweeps once per interval, forever. */
  readonly run: Effect.Effect<never, StoreError>
}

const checkConfig = (config: TaskExpiryConfig) => {
  if (!Number.isInteger(config.batchSize) || config.batchSize < 1 || config.batchSize > MAX_EXPIRY_BATCH)
    return Effect.dieMessage(`task expiry: batchSize must be an integer in 1..${MAX_EXPIRY_BATCH}`)
  if (!Number.isSafeInteger(config.sweepIntervalMs) || config.sweepIntervalMs < 1)
    return Effect.dieMessage("task expiry: sweepIntervalMs must be a positive integer")
  if (!Number.isInteger(config.concurrency) || config.concurrency < 1)
    return Effect.dieMessage("task expiry: concurrency must be a positive integer")
  return Effect.void
}

/** Expires unfinished tasks whose holds lapsed, in bounded batches, once per interval. */
export class TaskExpiry extends Context.Tag("@frank/core/TaskExpiry")<TaskExpiry, TaskExpiryShape>() {
  /** The task expiry sweep with this batch configuration. */
  static readonly layer = (config: TaskExpiryConfig = defaultTaskExpiryConfig) =>
    Layer.effect(
      TaskExpiry,
      Effect.gen(function* () {
        const tasks = yield* Tasks
        yield* checkConfig(config)
        const interval = config.sweepIntervalMs
        const slotOf = (now: number) => Math.floor(now / interval)
        const lastSlot = yield* Ref.make<number | undefined>(undefined)

        // Batches until one finds less than a full batch due, or expires nothing (what is left
        // failed and is logged; the next sweep tries again).
        const sweep: TaskExpiryShape["sweep"] = Effect.gen(function* () {
          let expired = 0
          let batches = 0
          for (;;) {
            const batch = yield* tasks.expireDue(config.batchSize, config.concurrency)
            expired += batch.expired
            batches++
            if (batch.due < config.batchSize || batch.expired === 0) break
            yield* Effect.yieldNow()
          }
          if (expired > 0)
            yield* Effect.logInfo("expired tasks failed and their holds refunded").pipe(
              Effect.annotateLogs({ expired, batches })
            )
          return { expired, batches }
        })

        const sweepDue: TaskExpiryShape["sweepDue"] = Effect.gen(function* () {
          const slot = slotOf(yield* Clock.currentTimeMillis)
          if ((yield* Ref.get(lastSlot)) === slot) return undefined
          const done = yield* sweep
          yield* Ref.set(lastSlot, slot)
          return done
        })

        const nextSweepAt: TaskExpiryShape["nextSweepAt"] = Effect.gen(function* () {
          const next = yield* tasks.nextExpiryAt
          if (next === undefined) return undefined
          const last = yield* Ref.get(lastSlot)
          // The first interval start at or after the expiry, and after the last sweep's interval.
          const dueSlot = Math.ceil(next / interval)
          return Math.max(dueSlot, last === undefined ? dueSlot : last + 1) * interval
        })

        const run: TaskExpiryShape["run"] = Effect.forever(
          Effect.gen(function* () {
            yield* sweepDue
            const now = yield* Clock.currentTimeMillis
            yield* Effect.sleep(Duration.millis((slotOf(now) + 1) * interval - now))
          })
        )

        return { sweep, sweepDue, nextSweepAt, run }
      })
    )
}

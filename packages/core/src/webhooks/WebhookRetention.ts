/**
 * Retention of the webhook area: events and finished deliveries older than the retention period
 * (WebhookSettings.retentionDays, FRANK_WEBHOOK_RETENTION_DAYS in the host) are removed, in
 * statements of at most `batchSize` rows, deliveries first and then the events left without any.
 * Pending and delivering deliveries stay whatever their age, and so do their events. Each sweep
 * first lets the store ready itself for the history to come (`prepare`: the SQL store creates its
 * day partitions ahead, and may then remove whole past days at once, so a row can outlive its
 * period by up to a day there).
 *
 * Sweeps fall at most once per `sweepIntervalMs`, counted from the epoch. Two ways to drive it, as
 * the delivery worker: `run` loops (a host forks it next to the worker), `sweepDue` sweeps if one
 * is due at the current instant, which is what the simulation kit steps under TestClock, waking at
 * `nextSweepAt`.
 */
import { Clock, Context, Duration, Effect, Layer, Ref } from "effect"
import type { StoreError } from "../StoreError.js"
import { HOUR_MS } from "../timeUnits.js"
import { retentionMs, WebhookSettings } from "./WebhookSettings.js"
import { WebhookRetentionStore, type WebhookRetentionStoreShape } from "./store/WebhookRetentionStore.js"
import { iso } from "../isoTime.js"

/** Rows one retention statement removes at most: short transactions, short locks. */
export const MAX_RETENTION_BATCH = 1_000

export interface RetentionConfig {
  /** How often a sweep runs. */
  readonly sweepIntervalMs: number
  /** Rows (deliveries or events) one statement removes at most; 1..MAX_RETENTION_BATCH. */
  readonly batchSize: number
}

export const defaultRetentionConfig: RetentionConfig = { sweepIntervalMs: HOUR_MS, batchSize: MAX_RETENTION_BATCH }

/** What one sweep removed, and how many statements it took. */
export interface RetentionSweep {
  /** Rows older than this (epoch ms) were due to go. */
  readonly before: number
  readonly deliveries: number
  readonly events: number
  readonly statements: number
}

export interface WebhookRetentionShape {
  /** Removes everything past the retention period now. */
  readonly sweep: Effect.Effect<RetentionSweep, StoreError>
  /** Sweeps unless this interval (of `sweepIntervalMs`) already had its sweep; undefined when it had. */
  readonly sweepDue: Effect.Effect<RetentionSweep | undefined, StoreError>
  /**
   * The first sweep time, after this interval's sweep, at which the oldest event kept is past the
   * retention period; undefined when no event is kept.
   */
  readonly nextSweepAt: Effect.Effect<number | undefined, StoreError>
  /** Sweeps once per interval, forever. */
  readonly run: Effect.Effect<never, StoreError>
}

/** Calls `remove` until a statement removes less than a full batch; answers rows and statements. */
const drain = (remove: (limit: number) => Effect.Effect<number, StoreError>, limit: number) =>
  Effect.gen(function* () {
    let rows = 0
    let statements = 0
    for (;;) {
      const n = yield* remove(limit)
      rows += n
      statements++
      if (n < limit) return { rows, statements }
      // Lets the other fibers (the worker's) in between statements.
      yield* Effect.yieldNow()
    }
  })

const sweepWith = (store: WebhookRetentionStoreShape, keepMs: number, batch: number) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    yield* store.prepare(now)
    const before = now - keepMs
    // Deliveries first: an event goes only once none of its deliveries is left.
    const deliveries = yield* drain((limit) => store.deleteExpiredDeliveries(before, limit), batch)
    const events = yield* drain((limit) => store.deleteExpiredEvents(before, limit), batch)
    const sweep: RetentionSweep = {
      before,
      deliveries: deliveries.rows,
      events: events.rows,
      statements: deliveries.statements + events.statements
    }
    if (sweep.deliveries + sweep.events > 0)
      yield* Effect.logInfo("webhook retention removed old deliveries and events").pipe(
        Effect.annotateLogs({
          deliveries: sweep.deliveries,
          events: sweep.events,
          before: iso(before)
        })
      )
    return sweep
  })

const checkConfig = (config: RetentionConfig, days: number | undefined) => {
  if (!Number.isInteger(config.batchSize) || config.batchSize < 1 || config.batchSize > MAX_RETENTION_BATCH)
    return Effect.dieMessage(`webhook retention: batchSize must be an integer in 1..${MAX_RETENTION_BATCH}`)
  if (!Number.isSafeInteger(config.sweepIntervalMs) || config.sweepIntervalMs < 1)
    return Effect.dieMessage("webhook retention: sweepIntervalMs must be a positive integer")
  if (days !== undefined && (!Number.isInteger(days) || days < 1))
    return Effect.dieMessage("webhook retention: retentionDays must be a whole number of at least 1")
  return Effect.void
}

/** Deletes delivered deliveries and their events after the retention horizon. */
export class WebhookRetention extends Context.Tag("@frank/core/WebhookRetention")<
  WebhookRetention,
  WebhookRetentionShape
>() {
  /** The retention job with this configuration. */
  static readonly layer = (config: RetentionConfig = defaultRetentionConfig) =>
    Layer.effect(
      WebhookRetention,
      Effect.gen(function* () {
        const store = yield* WebhookRetentionStore
        const settings = yield* WebhookSettings
        yield* checkConfig(config, settings.retentionDays)
        const keepMs = retentionMs(settings)
        const interval = config.sweepIntervalMs
        const slotOf = (now: number) => Math.floor(now / interval)
        // The interval that had the last sweep; a clock set back (a test) sweeps again.
        const lastSlot = yield* Ref.make<number | undefined>(undefined)
        const sweep = sweepWith(store, keepMs, config.batchSize)

        const sweepDue: WebhookRetentionShape["sweepDue"] = Effect.gen(function* () {
          const slot = slotOf(yield* Clock.currentTimeMillis)
          if ((yield* Ref.get(lastSlot)) === slot) return undefined
          const done = yield* sweep
          yield* Ref.set(lastSlot, slot)
          return done
        })

        const nextSweepAt: WebhookRetentionShape["nextSweepAt"] = Effect.gen(function* () {
          const oldest = yield* store.oldestEventAt()
          if (oldest === undefined) return undefined
          const last = yield* Ref.get(lastSlot)
          // Rows go once older than the period: strictly after oldest + keepMs.
          const expiresSlot = Math.ceil((oldest + keepMs + 1) / interval)
          return Math.max(expiresSlot, last === undefined ? expiresSlot : last + 1) * interval
        })

        const run: WebhookRetentionShape["run"] = Effect.forever(
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

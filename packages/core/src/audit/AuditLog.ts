/**
 * The audit log service: every change appends one record in the change's own transaction, the
 * partner reads its log page by page, and records past the retention period are removed in
 * bounded batches.
 *
 * Two ways to record: `recorded` wraps a change (opens the transaction, runs the change, appends
 * its record, commits, then wakes the outbox, whose events waited for the commit); `record` joins
 * a transaction the caller already holds (a service that writes its record beside its own rows).
 * Who acted and from which request is the fiber's `currentAuditOrigin`, set by the edges.
 */
import { Clock, Context, Duration, Effect, FiberRef, Layer, Option, Schedule } from "effect"
import type { PartnerId } from "../EntityIds.js"
import { Outbox } from "../events/Outbox.js"
import { Ids } from "../internal/ids.js"
import { iso } from "../isoTime.js"
import type { StoreError } from "../StoreError.js"
import { DAY_MS, HOUR_MS } from "../timeUnits.js"
import { type AuditCursor, encodeAuditCursor } from "./auditCursor.js"
import { currentAuditOrigin } from "./AuditContext.js"
import type { AuditChange, AuditRecord } from "./AuditRecord.js"
import { type AuditQuery, AuditStore } from "./AuditStore.js"

/** Records one retention statement removes at most (as webhook retention: short statements). */
export const MAX_AUDIT_RETENTION_BATCH = 1_000

/** How long records are kept and how the sweep runs. */
export interface AuditConfig {
  /** Days a record is kept (FRANK_AUDIT_RETENTION_DAYS in the host); at least 1. */
  readonly retentionDays: number
  /** Records one statement removes at most; 1..MAX_AUDIT_RETENTION_BATCH. */
  readonly batchSize: number
  /** How often `run` sweeps. */
  readonly sweepIntervalMs: number
}

/** A year of records, swept hourly in batches of 1 000. */
export const defaultAuditConfig: AuditConfig = {
  retentionDays: 365,
  batchSize: MAX_AUDIT_RETENTION_BATCH,
  sweepIntervalMs: HOUR_MS
}

/** One page of a partner's log and the cursor of the next (null on the last page). */
export interface AuditPage {
  readonly items: ReadonlyArray<AuditRecord>
  readonly nextCursor: string | null
}

/** What a retention sweep removed and in how many statements. */
export interface AuditSweep {
  readonly before: number
  readonly removed: number
  readonly statements: number
}

/** The change of `recorded`: fixed, or computed from the change's result (undefined: no record). */
export type AuditChangeOf<A> = AuditChange | ((result: A) => AuditChange | undefined)

/** The operations of the audit log service. */
export interface AuditLogShape {
  /** Appends the record of a change; joins the caller's open transaction. */
  readonly record: (partnerId: PartnerId, change: AuditChange) => Effect.Effect<void, StoreError>
  /** Runs `effect` and appends its record in one transaction; wakes the outbox after the commit. */
  readonly recorded: <A, E, R>(
    partnerId: PartnerId,
    change: AuditChangeOf<A>,
    effect: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | StoreError, R>
  /** Runs `effect` (which calls `record`) in one transaction; wakes the outbox after the commit. */
  readonly atomically: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreError, R>
  /** One page of the partner's records, newest first. */
  readonly list: (
    partnerId: PartnerId,
    query: Omit<AuditQuery, "after">,
    after?: AuditCursor | undefined
  ) => Effect.Effect<AuditPage, StoreError>
  /** Removes every record past the retention period now. */
  readonly sweep: Effect.Effect<AuditSweep, StoreError>
  /** Sweeps once per `sweepIntervalMs`, forever. */
  readonly run: Effect.Effect<never, StoreError>
}

const checkConfig = (config: AuditConfig) => {
  if (!Number.isInteger(config.retentionDays) || config.retentionDays < 1)
    return Effect.dieMessage("audit log: retentionDays must be a whole number of at least 1")
  if (!Number.isInteger(config.batchSize) || config.batchSize < 1 || config.batchSize > MAX_AUDIT_RETENTION_BATCH)
    return Effect.dieMessage(`audit log: batchSize must be an integer in 1..${MAX_AUDIT_RETENTION_BATCH}`)
  if (!Number.isSafeInteger(config.sweepIntervalMs) || config.sweepIntervalMs < 1)
    return Effect.dieMessage("audit log: sweepIntervalMs must be a positive integer")
  return Effect.void
}

/** The audit log: records changes with their actor and request, lists them, keeps them for a while. */
export class AuditLog extends Context.Tag("@frank/core/AuditLog")<AuditLog, AuditLogShape>() {
  /** The audit log with this retention and batch configuration. */
  static readonly layerWith = (config: AuditConfig) =>
    Layer.effect(
      AuditLog,
      Effect.gen(function* () {
        yield* checkConfig(config)
        const store = yield* AuditStore
        const ids = yield* Ids
        const outbox = yield* Effect.serviceOption(Outbox)
        const wake = Option.match(outbox, { onNone: () => Effect.void, onSome: (o) => o.wake })

        const record: AuditLogShape["record"] = (partnerId, change) =>
          Effect.flatMap(
            Effect.all([ids.next, Clock.currentTimeMillis, FiberRef.get(currentAuditOrigin)]),
            ([id, at, origin]) =>
              store.append({ ...origin, ...change, changes: [...new Set(change.changes)], id, partnerId, at })
          )

        const atomically: AuditLogShape["atomically"] = (effect) => Effect.tap(store.atomically(effect), () => wake)

        const recorded: AuditLogShape["recorded"] = (partnerId, change, effect) =>
          atomically(
            Effect.tap(effect, (result) => {
              const c = typeof change === "function" ? change(result) : change
              return c === undefined ? Effect.void : record(partnerId, c)
            })
          )

        const list: AuditLogShape["list"] = (partnerId, query, after) =>
          Effect.map(store.list(partnerId, { ...query, limit: query.limit + 1, after }), (rows) => {
            const items = rows.slice(0, query.limit)
            const last = items[items.length - 1]
            const more = rows.length > query.limit && last !== undefined
            return { items, nextCursor: more ? encodeAuditCursor({ at: last.at, id: last.id }) : null }
          })

        const sweep = Effect.gen(function* () {
          const before = (yield* Clock.currentTimeMillis) - config.retentionDays * DAY_MS
          let removed = 0
          let statements = 0
          for (;;) {
            const n = yield* store.deleteExpired(before, config.batchSize)
            removed += n
            statements++
            if (n < config.batchSize) break
            yield* Effect.yieldNow()
          }
          if (removed > 0)
            yield* Effect.logInfo("audit retention removed old records").pipe(
              Effect.annotateLogs({ removed, before: iso(before) })
            )
          return { before, removed, statements }
        })

        const run = Effect.repeat(sweep, Schedule.spaced(Duration.millis(config.sweepIntervalMs))).pipe(
          Effect.zipRight(Effect.never)
        )
        return { record, recorded, atomically, list, sweep, run }
      })
    )

  /** The log with the default configuration (a year). Needs AuditStore and Ids; wakes the Outbox if present. */
  static readonly layer = AuditLog.layerWith(defaultAuditConfig)
}

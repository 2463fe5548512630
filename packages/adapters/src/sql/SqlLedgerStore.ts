/**
 * The ledger store on SQL (PostgreSQL and PGlite). A rule runs under `SELECT … FOR UPDATE` of the
 * partner's account row, so writes for one partner serialize while partners proceed in parallel;
 * the CHECK constraints of the schema back the invariants the rules keep.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import type { Ids, Ledger, Tariffs } from "@frank/core"
import { Context, Effect, Either, Layer } from "effect"
import { toStoreError } from "./ledgerErrors.js"
import { makeLedgerReads } from "./ledgerReads.js"
import { makeGrantSql } from "./ledgerGrantsSql.js"
import { type AccountRow, ENTRY_COLUMNS, entryRecord, HOLD_COLUMNS, holdRecord, toTotals } from "./ledgerRows.js"
import {
  COUNTER_COLUMNS,
  type CounterColumns,
  type EntryCounters,
  numberEntries,
  type NumberedEntry,
  toCounters,
  typeCountColumn,
  usageDeltas
} from "./ledgerCounters.js"
import {
  type Decision,
  LedgerStore,
  type LedgerStoreShape,
  type Snapshot,
  TariffStore,
  type TariffStoreShape,
  type TransactRequest
} from "@frank/core/stores"

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const entryColumns = sql.literal(ENTRY_COLUMNS)
  const holdColumns = sql.literal(HOLD_COLUMNS)
  const counterColumns = sql.literal(COUNTER_COLUMNS)
  const grantSql = makeGrantSql(sql)

  const selectAccountForUpdate = (partnerId: Ids.PartnerId) =>
    sql<AccountRow & CounterColumns>`SELECT total_minor, used_minor, reserved_minor, ${counterColumns}
      FROM ledger_accounts WHERE partner_id = ${partnerId} FOR UPDATE`

  const lockedState = (row: (AccountRow & CounterColumns) | undefined) => ({
    totals: toTotals(row),
    counters: toCounters(row)
  })

  /**
   * Locks the partner's account row, creating it on the first movement. The common case is one
   * statement; a first movement inserts with ON CONFLICT DO NOTHING (a concurrent first movement
   * may win, then we wait for its commit) and locks the row that now surely exists.
   */
  const lockAccount = (partnerId: Ids.PartnerId) =>
    Effect.gen(function* () {
      const locked = yield* selectAccountForUpdate(partnerId)
      if (locked[0] !== undefined) return lockedState(locked[0])
      yield* sql`INSERT INTO ledger_accounts (partner_id) VALUES (${partnerId}) ON CONFLICT (partner_id) DO NOTHING`
      const created = yield* selectAccountForUpdate(partnerId)
      return lockedState(created[0])
    })

  const selectHold = (partnerId: Ids.PartnerId, taskId: string, forUpdate: boolean) =>
    Effect.map(
      sql<Ledger.Hold>`SELECT ${holdColumns} FROM ledger_holds WHERE partner_id = ${partnerId} AND task_id = ${taskId}${forUpdate ? sql` FOR UPDATE` : sql``}`,
      (rows) => rows[0]
    )

  const selectReferenced = (partnerId: Ids.PartnerId, reference: string) =>
    Effect.map(
      sql<Ledger.LedgerEntry>`SELECT ${entryColumns} FROM ledger_entries WHERE partner_id = ${partnerId} AND reference = ${reference}`,
      (rows) => rows[0]
    )

  /** What the rule sees: the locked account plus the hold and referenced entry the request names. */
  const loadSnapshot = (request: TransactRequest) =>
    Effect.gen(function* () {
      const { totals, counters } = yield* lockAccount(request.partnerId)
      const hold = request.taskId === undefined ? undefined : yield* selectHold(request.partnerId, request.taskId, true)
      const referenced =
        request.reference === undefined ? undefined : yield* selectReferenced(request.partnerId, request.reference)
      const grants = yield* grantSql.liveGrants(request.partnerId)
      const snapshot: Snapshot = {
        partnerId: request.partnerId,
        totals,
        hold,
        referenced,
        grants,
        lastEntryAt: counters.lastEntryAt
      }
      return { snapshot, counters }
    })

  const insertEntries = (entries: ReadonlyArray<NumberedEntry>) =>
    sql`INSERT INTO ledger_entries ${sql.insert(entries.map(entryRecord))}`

  /** The account row after a movement with entries: totals and the counters reads use. */
  const updateAccount = (partnerId: Ids.PartnerId, totals: Ledger.AccountTotals, counters: EntryCounters) => {
    const typeCounts = Object.entries(counters.byType).map(
      ([type, n]) => sql`${sql.literal(typeCountColumn(type as Ledger.TransactionType))} = ${n}`
    )
    return sql`UPDATE ledger_accounts SET total_minor = ${totals.totalMinor}, used_minor = ${totals.usedMinor},
      reserved_minor = ${totals.reservedMinor}, entry_count = ${counters.entryCount},
      ${sql.csv(typeCounts)}, last_entry_at = ${counters.lastEntryAt ?? null} WHERE partner_id = ${partnerId}`
  }

  // Daily usage grows in the movement's transaction; the account lock orders concurrent writers.
  const addUsage = (partnerId: Ids.PartnerId, entries: ReadonlyArray<Ledger.NewLedgerEntry>) => {
    const days = usageDeltas(entries)
    if (days.length === 0) return undefined
    return sql`INSERT INTO ledger_usage_days ${sql.insert(days.map((d) => ({ partnerId, ...d })))}
      ON CONFLICT (partner_id, day_start_ms) DO UPDATE SET spent_minor = ledger_usage_days.spent_minor + EXCLUDED.spent_minor`
  }

  // A hold is inserted open and later replaced by its settled state; its identity never changes.
  const upsertHold = (h: Ledger.Hold) =>
    sql`INSERT INTO ledger_holds ${sql.insert(holdRecord(h))}
      ON CONFLICT (partner_id, task_id) DO UPDATE SET
        status = EXCLUDED.status, charged_minor = EXCLUDED.charged_minor, released_minor = EXCLUDED.released_minor,
        settlement_entry_id = EXCLUDED.settlement_entry_id, settled_at = EXCLUDED.settled_at`

  /**
   * A decision's writes as one statement, each a data-modifying CTE on a table of its own: one
   * round trip while the account row is locked, where every round trip makes the partner's other
   * movements wait longer (bench/sustained, docs/performance.md).
   */
  const writeDecision = (
    partnerId: Ids.PartnerId,
    d: Decision<unknown>,
    numbered: ReturnType<typeof numberEntries>
  ): Effect.Effect<unknown, SqlError> => {
    const writes: Array<Statement.Fragment> = []
    if (d.entries.length > 0) writes.push(insertEntries(numbered.numbered))
    if (d.hold !== undefined) writes.push(upsertHold(d.hold))
    if (d.grants.length > 0) writes.push(grantSql.upsertGrants(d.grants))
    if (d.entries.length > 0) {
      writes.push(updateAccount(partnerId, d.totals, numbered.counters))
      const usage = addUsage(partnerId, d.entries)
      if (usage !== undefined) writes.push(usage)
    }
    const last = writes.pop()
    if (last === undefined) return Effect.void
    if (writes.length === 0) return sql`${last}`
    const ctes = writes.map((w, i) => sql`${sql.literal(`w${i}`)} AS (${w})`)
    return sql`WITH ${sql.csv(ctes)} ${last}`
  }

  const transact: LedgerStoreShape["transact"] = (request, rule, followUp) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          const loaded = yield* loadSnapshot(request)
          const decided = rule(loaded.snapshot)
          // A refusal fails inside the transaction, so it (or the savepoint of an enclosing
          // transaction) rolls back, including an account row created just now.
          if (Either.isLeft(decided)) return yield* Effect.fail(decided.left)
          const d = decided.right
          yield* writeDecision(request.partnerId, d, numberEntries(loaded.counters, d.entries))
          if (followUp !== undefined) yield* followUp(d.result)
          return d.result
        })
      )
      .pipe(Effect.catchTag("SqlError", (e) => Effect.fail(toStoreError("transact", request.partnerId)(e))))

  const reads = makeLedgerReads(sql)

  const store: LedgerStoreShape & TariffStoreShape = {
    transact,

    totals: (partnerId) =>
      sql<AccountRow>`SELECT total_minor, used_minor, reserved_minor FROM ledger_accounts WHERE partner_id = ${partnerId}`.pipe(
        Effect.map((rows) => toTotals(rows[0])),
        Effect.mapError(toStoreError("totals", partnerId))
      ),

    hold: (partnerId, taskId) =>
      selectHold(partnerId, taskId, false).pipe(Effect.mapError(toStoreError("hold", partnerId))),

    ...reads,

    grants: grantSql.grants,
    totalsWithExpiring: grantSql.totalsWithExpiring,
    dueGrants: grantSql.dueGrants,
    nextGrantExpiry: grantSql.nextGrantExpiry,
    createAlert: grantSql.createAlert,
    alerts: grantSql.alerts,
    deleteAlert: grantSql.deleteAlert,
    settleAlerts: grantSql.settleAlerts,

    claimLowBalance: (partnerId, now, minIntervalMs) =>
      sql<{ partnerId: Ids.PartnerId }>`
        INSERT INTO webhook_low_balance_marks (partner_id, emitted_at) VALUES (${partnerId}, ${now})
        ON CONFLICT (partner_id) DO UPDATE SET emitted_at = EXCLUDED.emitted_at
        WHERE webhook_low_balance_marks.emitted_at <= ${now - minIntervalMs}
        RETURNING partner_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.mapError(toStoreError("claimLowBalance", partnerId))
      ),

    // No account row means the partner never had a plan assigned: the default plan applies.
    assignedPlan: (partnerId) =>
      sql<{
        assignedPlan: Tariffs.Plan
      }>`SELECT assigned_plan FROM ledger_accounts WHERE partner_id = ${partnerId}`.pipe(
        Effect.map((rows) => rows[0]?.assignedPlan ?? "base"),
        Effect.mapError(toStoreError("assignedPlan", partnerId))
      ),

    setAssignedPlan: (partnerId, plan) =>
      sql`INSERT INTO ledger_accounts (partner_id, assigned_plan) VALUES (${partnerId}, ${plan})
          ON CONFLICT (partner_id) DO UPDATE SET assigned_plan = EXCLUDED.assigned_plan`.pipe(
        Effect.asVoid,
        Effect.mapError(toStoreError("setAssignedPlan", partnerId))
      )
  }
  return store
})

/** Provides the ledger store and the tariff plan store, which it implements too. */
export const layer: Layer.Layer<LedgerStore | TariffStore, never, SqlClient.SqlClient> = Layer.effectContext(
  Effect.map(make, (store) => Context.make(LedgerStore, store).pipe(Context.add(TariffStore, store)))
)

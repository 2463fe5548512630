/**
 * The ledger store on SQL (PostgreSQL and PGlite). A rule runs under `SELECT … FOR UPDATE` of the
 * partner's account row, so writes for one partner serialize while partners proceed in parallel;
 * the CHECK constraints of the schema back the invariants the rules keep.
 */
import { SqlClient, type SqlError } from "@effect/sql"
import {
  type AccountTotals,
  type EntryFilter,
  emptyTotals,
  type Hold,
  type LedgerEntry,
  LedgerStore,
  type LedgerStoreShape,
  type NewLedgerEntry,
  type Plan,
  StoreError,
  type UsageDay
} from "@frank/core"
import { Chunk, Effect, Either, Layer, Option, Stream } from "effect"

/** Rows read per round trip when streaming an export. */
const STREAM_PAGE_ROWS = 500

type EntryRow = Omit<LedgerEntry, never>

interface AccountRow {
  readonly totalMinor: number
  readonly usedMinor: number
  readonly reservedMinor: number
}

const storeError = (what: string) => (cause: SqlError.SqlError) => new StoreError({ message: `ledger store: ${what} failed`, cause })

const toTotals = (row: AccountRow | undefined): AccountTotals =>
  row === undefined ? emptyTotals : { totalMinor: row.totalMinor, usedMinor: row.usedMinor, reservedMinor: row.reservedMinor }

export const makeSqlLedgerStore = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const entryColumns = sql`partner_id, id, seq, type, kind, amount_minor, unit_price_micros, task_id, attribution, reference, label, description, occurred_at`

  const where = (partnerId: string, f: EntryFilter) =>
    sql.and([
      sql`partner_id = ${partnerId}`,
      ...(f.type === undefined ? [] : [sql`type = ${f.type}`]),
      ...(f.attribution === undefined ? [] : [sql`attribution = ${f.attribution}`]),
      ...(f.fromMs === undefined ? [] : [sql`occurred_at >= ${f.fromMs}`]),
      ...(f.untilMs === undefined ? [] : [sql`occurred_at < ${f.untilMs}`])
    ])

  const lockAccount = (partnerId: string) =>
    Effect.gen(function* () {
      const locked = yield* sql<AccountRow>`SELECT total_minor, used_minor, reserved_minor FROM ledger_accounts WHERE partner_id = ${partnerId} FOR UPDATE`
      if (locked[0] !== undefined) return toTotals(locked[0])
      // First movement of this partner: create the row (a concurrent creator may win), then lock it.
      yield* sql`INSERT INTO ledger_accounts (partner_id) VALUES (${partnerId}) ON CONFLICT (partner_id) DO NOTHING`
      const created = yield* sql<AccountRow>`SELECT total_minor, used_minor, reserved_minor FROM ledger_accounts WHERE partner_id = ${partnerId} FOR UPDATE`
      return toTotals(created[0])
    })

  const insertEntries = (entries: ReadonlyArray<NewLedgerEntry>) =>
    entries.length === 0
      ? Effect.void
      : sql`INSERT INTO ledger_entries ${sql.insert(
          entries.map((e) => ({
            partnerId: e.partnerId,
            id: e.id,
            type: e.type,
            kind: e.kind,
            amountMinor: e.amountMinor,
            unitPriceMicros: e.unitPriceMicros,
            taskId: e.taskId,
            attribution: e.attribution,
            reference: e.reference,
            label: e.label,
            description: e.description,
            occurredAt: e.occurredAt
          }))
        )}`.pipe(Effect.asVoid)

  const upsertHold = (h: Hold) =>
    sql`INSERT INTO ledger_holds ${sql.insert({
      partnerId: h.partnerId,
      taskId: h.taskId,
      status: h.status,
      reservedMinor: h.reservedMinor,
      chargedMinor: h.chargedMinor,
      releasedMinor: h.releasedMinor,
      reservationEntryId: h.reservationEntryId,
      settlementEntryId: h.settlementEntryId,
      createdAt: h.createdAt,
      settledAt: h.settledAt
    })}
    ON CONFLICT (partner_id, task_id) DO UPDATE SET
      status = EXCLUDED.status, charged_minor = EXCLUDED.charged_minor, released_minor = EXCLUDED.released_minor,
      settlement_entry_id = EXCLUDED.settlement_entry_id, settled_at = EXCLUDED.settled_at`.pipe(Effect.asVoid)

  const readHold = (partnerId: string, taskId: string, forUpdate: boolean) =>
    Effect.map(
      forUpdate
        ? sql<Hold>`SELECT * FROM ledger_holds WHERE partner_id = ${partnerId} AND task_id = ${taskId} FOR UPDATE`
        : sql<Hold>`SELECT * FROM ledger_holds WHERE partner_id = ${partnerId} AND task_id = ${taskId}`,
      (rows) => rows[0]
    )

  const store: LedgerStoreShape = {
    transact: (request, rule) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const totals = yield* lockAccount(request.partnerId)
            const hold = request.taskId === undefined ? undefined : yield* readHold(request.partnerId, request.taskId, true)
            const referenced =
              request.reference === undefined
                ? undefined
                : (yield* sql<EntryRow>`SELECT ${entryColumns} FROM ledger_entries WHERE partner_id = ${request.partnerId} AND reference = ${request.reference}`)[0]
            const decided = rule({ partnerId: request.partnerId, totals, hold, referenced })
            if (Either.isLeft(decided)) return Either.left(decided.left)
            const d = decided.right
            yield* insertEntries(d.entries)
            if (d.hold !== undefined) yield* upsertHold(d.hold)
            if (d.entries.length > 0)
              yield* sql`UPDATE ledger_accounts SET total_minor = ${d.totals.totalMinor}, used_minor = ${d.totals.usedMinor},
                reserved_minor = ${d.totals.reservedMinor} WHERE partner_id = ${request.partnerId}`
            return Either.right(d.result)
          })
        )
        .pipe(
          Effect.mapError(storeError("transact")),
          // A rule's refusal is returned, not thrown, so it does not roll back anything it never wrote.
          Effect.flatMap((r) => (Either.isLeft(r) ? Effect.fail(r.left) : Effect.succeed(r.right)))
        ),

    totals: (partnerId) =>
      sql<AccountRow>`SELECT total_minor, used_minor, reserved_minor FROM ledger_accounts WHERE partner_id = ${partnerId}`.pipe(
        Effect.map((rows) => toTotals(rows[0])),
        Effect.mapError(storeError("totals"))
      ),

    hold: (partnerId, taskId) => readHold(partnerId, taskId, false).pipe(Effect.mapError(storeError("hold"))),

    listEntries: (partnerId, filter, offset, limit) =>
      Effect.all(
        [
          sql<EntryRow>`SELECT ${entryColumns} FROM ledger_entries WHERE ${where(partnerId, filter)}
            ORDER BY occurred_at DESC, seq DESC LIMIT ${limit} OFFSET ${offset}`,
          sql<{ n: number }>`SELECT count(*)::bigint AS n FROM ledger_entries WHERE ${where(partnerId, filter)}`
        ],
        { concurrency: 1 }
      ).pipe(
        Effect.map(([items, count]) => ({ items, total: count[0]?.n ?? 0 })),
        Effect.mapError(storeError("listEntries"))
      ),

    countEntries: (partnerId, filter) =>
      sql<{ n: number }>`SELECT count(*)::bigint AS n FROM ledger_entries WHERE ${where(partnerId, filter)}`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0),
        Effect.mapError(storeError("countEntries"))
      ),

    // Keyset pagination on (occurred_at, seq): each page is one bounded query, memory stays flat.
    streamEntries: (partnerId, filter, maxRows) =>
      Stream.paginateChunkEffect(
        { after: Option.none<{ occurredAt: number; seq: number }>(), left: maxRows },
        ({ after, left }) => {
          const size = Math.min(STREAM_PAGE_ROWS, left)
          const cursor = Option.match(after, {
            onNone: () => sql`TRUE`,
            onSome: (c) => sql`(occurred_at, seq) < (${c.occurredAt}, ${c.seq})`
          })
          return sql<EntryRow>`SELECT ${entryColumns} FROM ledger_entries WHERE ${where(partnerId, filter)} AND ${cursor}
            ORDER BY occurred_at DESC, seq DESC LIMIT ${size}`.pipe(
            Effect.map((rows) => {
              const last = rows[rows.length - 1]
              const more = rows.length === size && left - rows.length > 0 && last !== undefined
              return [
                Chunk.unsafeFromArray(rows),
                more ? Option.some({ after: Option.some({ occurredAt: last.occurredAt, seq: last.seq }), left: left - rows.length }) : Option.none()
              ] as const
            }),
            Effect.mapError(storeError("streamEntries"))
          )
        }
      ),

    usageByDay: (partnerId, fromMs, untilMs) =>
      sql<UsageDay>`
        SELECT (occurred_at / 86400000) * 86400000 AS day_start_ms,
               sum(CASE WHEN type = 'confirm' THEN amount_minor ELSE -amount_minor END)::bigint AS spent_minor
        FROM ledger_entries
        WHERE partner_id = ${partnerId} AND occurred_at >= ${fromMs} AND occurred_at < ${untilMs}
          AND (type = 'confirm' OR (type = 'refund' AND task_id IS NULL))
        GROUP BY 1 ORDER BY 1`.pipe(Effect.mapError(storeError("usageByDay"))),

    assignedPlan: (partnerId) =>
      sql<{ assignedPlan: Plan }>`SELECT assigned_plan FROM ledger_accounts WHERE partner_id = ${partnerId}`.pipe(
        Effect.map((rows) => rows[0]?.assignedPlan ?? "base"),
        Effect.mapError(storeError("assignedPlan"))
      ),

    setAssignedPlan: (partnerId, plan) =>
      sql`INSERT INTO ledger_accounts (partner_id, assigned_plan) VALUES (${partnerId}, ${plan})
          ON CONFLICT (partner_id) DO UPDATE SET assigned_plan = EXCLUDED.assigned_plan`.pipe(
        Effect.asVoid,
        Effect.mapError(storeError("setAssignedPlan"))
      )
  }
  return store
})

export const SqlLedgerStore = Layer.effect(LedgerStore, makeSqlLedgerStore)

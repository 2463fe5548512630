/**
 * The ledger's read queries: entry lists, counts, the bounded export stream and daily usage.
 * Every query is scoped by partner_id and ordered newest first on (occurred_at, seq), which the
 * index ledger_entries_newest serves.
 */
import type { SqlClient } from "@effect/sql"
import type { Errors, Ids, Ledger } from "@frank/core"
import { Chunk, Effect, Option, Stream } from "effect"
import { toStoreError } from "./ledgerErrors.js"
import { ENTRY_COLUMNS } from "./ledgerRows.js"

/** Rows read per round trip when streaming an export: memory stays flat however long the ledger. */
export const STREAM_PAGE_ROWS = 500

interface Cursor {
  readonly occurredAt: number
  readonly seq: number
}

export const makeLedgerReads = (sql: SqlClient.SqlClient) => {
  const columns = sql.literal(ENTRY_COLUMNS)

  const where = (partnerId: Ids.PartnerId, f: Ledger.EntryFilter) =>
    sql.and([
      sql`partner_id = ${partnerId}`,
      ...(f.type === undefined ? [] : [sql`type = ${f.type}`]),
      ...(f.attribution === undefined ? [] : [sql`attribution = ${f.attribution}`]),
      ...(f.fromMs === undefined ? [] : [sql`occurred_at >= ${f.fromMs}`]),
      ...(f.untilMs === undefined ? [] : [sql`occurred_at < ${f.untilMs}`])
    ])

  const count = (partnerId: Ids.PartnerId, filter: Ledger.EntryFilter) =>
    Effect.map(
      sql<{ n: number }>`SELECT count(*) AS n FROM ledger_entries WHERE ${where(partnerId, filter)}`,
      (rows) => rows[0]?.n ?? 0
    )

  const listEntries = (
    partnerId: Ids.PartnerId,
    filter: Ledger.EntryFilter,
    offset: number,
    limit: number
  ): Effect.Effect<Ledger.EntryPage, Errors.StoreError> =>
    Effect.all(
      [
        sql<Ledger.LedgerEntry>`SELECT ${columns} FROM ledger_entries WHERE ${where(partnerId, filter)}
          ORDER BY occurred_at DESC, seq DESC LIMIT ${limit} OFFSET ${offset}`,
        count(partnerId, filter)
      ],
      { concurrency: 2 }
    ).pipe(
      Effect.map(([items, total]) => ({ items, total })),
      Effect.mapError(toStoreError("listEntries", partnerId))
    )

  const countEntries = (
    partnerId: Ids.PartnerId,
    filter: Ledger.EntryFilter
  ): Effect.Effect<number, Errors.StoreError> =>
    count(partnerId, filter).pipe(Effect.mapError(toStoreError("countEntries", partnerId)))

  /** One page strictly after `after` in newest-first order (keyset, not OFFSET: every page costs the same). */
  const page = (partnerId: Ids.PartnerId, filter: Ledger.EntryFilter, after: Option.Option<Cursor>, size: number) =>
    sql<Ledger.LedgerEntry>`SELECT ${columns} FROM ledger_entries
      WHERE ${where(partnerId, filter)}
        AND ${Option.match(after, { onNone: () => sql`TRUE`, onSome: (c) => sql`(occurred_at, seq) < (${c.occurredAt}, ${c.seq})` })}
      ORDER BY occurred_at DESC, seq DESC LIMIT ${size}`

  const streamEntries = (
    partnerId: Ids.PartnerId,
    filter: Ledger.EntryFilter,
    maxRows: number
  ): Stream.Stream<Ledger.LedgerEntry, Errors.StoreError> => {
    const max = Math.floor(maxRows)
    if (!(max > 0)) return Stream.empty
    return Stream.paginateChunkEffect({ after: Option.none<Cursor>(), left: max }, ({ after, left }) => {
      const size = Math.min(STREAM_PAGE_ROWS, left)
      return page(partnerId, filter, after, size).pipe(
        Effect.map((rows) => {
          const last = rows[rows.length - 1]
          // A short page is the last one; so is the page that reaches maxRows.
          const next =
            last !== undefined && rows.length === size && left > size
              ? Option.some({ after: Option.some({ occurredAt: last.occurredAt, seq: last.seq }), left: left - size })
              : Option.none()
          return [Chunk.unsafeFromArray(rows), next] as const
        }),
        Effect.mapError(toStoreError("streamEntries", partnerId))
      )
    })
  }

  /**
   * Sparse daily usage, exactly `usageContribution` of dailyUsage.ts summed per UTC day: confirm
   * rows count (a zero confirm still makes its day appear), refunds without a task count
   * negatively, everything else not at all. floor() on numeric keeps the day boundary exact.
   */
  const usageByDay = (
    partnerId: Ids.PartnerId,
    fromMs: number,
    untilMs: number
  ): Effect.Effect<ReadonlyArray<Ledger.UsageDay>, Errors.StoreError> =>
    sql<Ledger.UsageDay>`
      SELECT (floor(occurred_at / 86400000.0) * 86400000)::bigint AS day_start_ms,
             sum(CASE WHEN type = 'confirm' THEN amount_minor ELSE -amount_minor END)::bigint AS spent_minor
      FROM ledger_entries
      WHERE partner_id = ${partnerId} AND occurred_at >= ${fromMs} AND occurred_at < ${untilMs}
        AND (type = 'confirm' OR (type = 'refund' AND task_id IS NULL))
      GROUP BY 1 ORDER BY 1`.pipe(Effect.mapError(toStoreError("usageByDay", partnerId)))

  return { listEntries, countEntries, streamEntries, usageByDay }
}

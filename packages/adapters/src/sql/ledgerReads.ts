/**
 * The ledger's read queries: entry lists, counts, the bounded export stream and daily usage, at a
 * cost that does not grow with a partner's history (migration 0027). A partner's entries are
 * numbered 1, 2, 3, … in write order (`account_seq`), and within each type (`type_seq`); write
 * order is (occurred_at, seq) order, because a movement never writes an earlier time than the
 * newest. So a list is a range of one numbering: its total is a column of the account row or the
 * distance between two index seeks (a date range), and page N a range seek — no count(*), no
 * OFFSET. Only the attribution filter, which selects top-ups, counts and skips its rows, through
 * an index that holds attributed rows only. Every query is scoped by partner_id.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { Errors, Ids, Ledger } from "@frank/core"
import { Chunk, Effect, Option, Stream } from "effect"
import { toStoreError } from "./ledgerErrors.js"
import { typeCountColumn } from "./ledgerCounters.js"
import { ENTRY_COLUMNS, ENTRY_FIELDS } from "./ledgerRows.js"

/** Rows read per round trip when streaming an export: memory stays flat however long the ledger. */
export const STREAM_PAGE_ROWS = 1_000

const DAY_MS = 86_400_000

/** The rows a filter selects: numbers `lo`..`hi` of its numbering, newest (`hi`) first; empty when hi < lo. */
interface SeqRange {
  readonly lo: number
  readonly hi: number
}

const sizeOf = (r: SeqRange) => Math.max(0, r.hi - r.lo + 1)

export const makeLedgerReads = (sql: SqlClient.SqlClient) => {
  const columns = sql.literal(ENTRY_COLUMNS)
  const fields = sql.literal(ENTRY_FIELDS)

  const where = (partnerId: Ids.PartnerId, f: Ledger.EntryFilter) =>
    sql.and([
      sql`partner_id = ${partnerId}`,
      ...(f.type === undefined ? [] : [sql`type = ${f.type}`]),
      ...(f.attribution === undefined ? [] : [sql`attribution = ${f.attribution}`]),
      ...(f.fromMs === undefined ? [] : [sql`occurred_at >= ${f.fromMs}`]),
      ...(f.untilMs === undefined ? [] : [sql`occurred_at < ${f.untilMs}`])
    ])

  /** The numbering a filter without attribution lists by: the type's, or the whole ledger's. */
  const seqColumn = (f: Ledger.EntryFilter) => sql.literal(f.type === undefined ? "account_seq" : "type_seq")

  /**
   * One round trip: the count kept on the account row, and for a date range the numbers of its
   * oldest and newest rows, each one seek on ledger_entries_newest. With a type as well, that seek
   * skips the rows of other types near the bound (a cost of the type's density, not of history).
   */
  const rangeOf = (partnerId: Ids.PartnerId, f: Ledger.EntryFilter) => {
    const seq = seqColumn(f)
    const ofType = f.type === undefined ? sql`` : sql` AND type = ${f.type}`
    const counted = sql.literal(f.type === undefined ? "entry_count" : typeCountColumn(f.type))
    const lo =
      f.fromMs === undefined
        ? sql`1`
        : sql`(SELECT ${seq} FROM ledger_entries WHERE partner_id = ${partnerId}${ofType}
            AND occurred_at >= ${f.fromMs} ORDER BY occurred_at, seq LIMIT 1)`
    const hi =
      f.untilMs === undefined
        ? sql`(SELECT ${counted} FROM ledger_accounts WHERE partner_id = ${partnerId})`
        : sql`(SELECT ${seq} FROM ledger_entries WHERE partner_id = ${partnerId}${ofType}
            AND occurred_at < ${f.untilMs} ORDER BY occurred_at DESC, seq DESC LIMIT 1)`
    // A missing bound (no row on that side, no account) makes the range empty.
    return Effect.map(
      sql<{ lo: number | null; hi: number | null }>`SELECT ${lo} AS lo, ${hi} AS hi`,
      ([row]): SeqRange => (row?.lo == null || row.hi == null ? { lo: 1, hi: 0 } : { lo: row.lo, hi: row.hi })
    )
  }

  /** Numbers `bottom`..`top` of the filter's numbering, newest first: one index range. */
  const slice = (partnerId: Ids.PartnerId, f: Ledger.EntryFilter, bottom: number, top: number) => {
    const seq = seqColumn(f)
    const ofType = f.type === undefined ? sql`` : sql` AND type = ${f.type}`
    return sql<Ledger.LedgerEntry>`SELECT ${fields} FROM ledger_entries
      WHERE partner_id = ${partnerId}${ofType} AND ${seq} BETWEEN ${bottom} AND ${top} ORDER BY ${seq} DESC`
      .withoutTransform
  }

  /** The rows of an attribution filter (top-ups), counted and skipped on the attributed rows' index. */
  const attributedPage = (partnerId: Ids.PartnerId, f: Ledger.EntryFilter, offset: number, limit: number) =>
    Effect.all(
      [
        sql<Ledger.LedgerEntry>`SELECT ${columns} FROM ledger_entries WHERE ${where(partnerId, f)}
          ORDER BY account_seq DESC LIMIT ${limit} OFFSET ${offset}`,
        Effect.map(
          sql<{ n: number }>`SELECT count(*) AS n FROM ledger_entries WHERE ${where(partnerId, f)}`,
          (rows) => rows[0]?.n ?? 0
        )
      ],
      { concurrency: 2 }
    ).pipe(Effect.map(([items, total]) => ({ items, total })))

  const numberedPage = (partnerId: Ids.PartnerId, f: Ledger.EntryFilter, offset: number, limit: number) =>
    Effect.gen(function* () {
      const range = yield* rangeOf(partnerId, f)
      const top = range.hi - offset
      const bottom = Math.max(range.lo, top - limit + 1)
      const items = limit > 0 && top >= range.lo ? yield* slice(partnerId, f, bottom, top) : []
      return { items, total: sizeOf(range) }
    })

  const listEntries = (
    partnerId: Ids.PartnerId,
    filter: Ledger.EntryFilter,
    offset: number,
    limit: number
  ): Effect.Effect<Ledger.EntryPage, Errors.StoreError> =>
    (filter.attribution === undefined
      ? numberedPage(partnerId, filter, Math.max(0, Math.floor(offset)), Math.floor(limit))
      : attributedPage(partnerId, filter, offset, limit)
    ).pipe(Effect.mapError(toStoreError("listEntries", partnerId)))

  const countEntries = (
    partnerId: Ids.PartnerId,
    filter: Ledger.EntryFilter
  ): Effect.Effect<number, Errors.StoreError> =>
    (filter.attribution === undefined
      ? Effect.map(rangeOf(partnerId, filter), sizeOf)
      : Effect.map(attributedPage(partnerId, filter, 0, 0), (p) => p.total)
    ).pipe(Effect.mapError(toStoreError("countEntries", partnerId)))

  /** Numbered rows from `top` down to `lo`, at most `max`, one range seek per page. */
  const streamRange = (partnerId: Ids.PartnerId, f: Ledger.EntryFilter, range: SeqRange, max: number) =>
    Stream.paginateChunkEffect({ top: range.hi, left: Math.min(max, sizeOf(range)) }, ({ top, left }) => {
      const size = Math.min(STREAM_PAGE_ROWS, left)
      if (size <= 0) return Effect.succeed([Chunk.empty<Ledger.LedgerEntry>(), Option.none()] as const)
      return Effect.map(slice(partnerId, f, top - size + 1, top), (rows) => {
        const next = left > size ? Option.some({ top: top - size, left: left - size }) : Option.none()
        return [Chunk.unsafeFromArray(rows), next] as const
      })
    })

  /** Attributed rows (top-ups) by keyset on account_seq. */
  const streamAttributed = (partnerId: Ids.PartnerId, f: Ledger.EntryFilter, max: number) =>
    Stream.paginateChunkEffect({ after: Option.none<number>(), left: max }, ({ after, left }) => {
      const size = Math.min(STREAM_PAGE_ROWS, left)
      const below = Option.match(after, { onNone: () => sql`TRUE`, onSome: (s) => sql`account_seq < ${s}` })
      return Effect.map(
        sql<Ledger.LedgerEntry & { accountSeq: number }>`SELECT ${columns}, account_seq FROM ledger_entries
          WHERE ${where(partnerId, f)} AND ${below} ORDER BY account_seq DESC LIMIT ${size}`,
        (rows) => {
          const last = rows[rows.length - 1]
          const next =
            last !== undefined && rows.length === size && left > size
              ? Option.some({ after: Option.some(last.accountSeq), left: left - size })
              : Option.none()
          return [Chunk.unsafeFromArray(rows.map(({ accountSeq: _, ...entry }) => entry)), next] as const
        }
      )
    })

  const streamEntries = (
    partnerId: Ids.PartnerId,
    filter: Ledger.EntryFilter,
    maxRows: number
  ): Stream.Stream<Ledger.LedgerEntry, Errors.StoreError> => {
    const max = Math.floor(maxRows)
    if (!(max > 0)) return Stream.empty
    const rows =
      filter.attribution === undefined
        ? Stream.unwrap(Effect.map(rangeOf(partnerId, filter), (range) => streamRange(partnerId, filter, range, max)))
        : streamAttributed(partnerId, filter, max)
    return Stream.mapError(rows, toStoreError("streamEntries", partnerId))
  }

  /**
   * Sparse daily usage, exactly `usageContribution` of dailyUsage.ts summed per UTC day: confirm
   * rows count (a zero confirm still makes its day appear), refunds without a task count
   * negatively, everything else not at all. floor() on numeric keeps the day boundary exact.
   */
  const usageFromRows = (partnerId: Ids.PartnerId, fromMs: number, untilMs: number) =>
    sql<Ledger.UsageDay>`
      SELECT (floor(occurred_at / 86400000.0) * 86400000)::bigint AS day_start_ms,
             sum(CASE WHEN type = 'confirm' THEN amount_minor ELSE -amount_minor END)::bigint AS spent_minor
      FROM ledger_entries
      WHERE partner_id = ${partnerId} AND occurred_at >= ${fromMs} AND occurred_at < ${untilMs}
        AND (type = 'confirm' OR (type = 'refund' AND task_id IS NULL))
      GROUP BY 1 ORDER BY 1`

  /**
   * Whole days come from ledger_usage_days (one row per day, written with the movement); a range
   * that starts or ends inside a day sums that day's part from its rows.
   */
  const usageByDay = (
    partnerId: Ids.PartnerId,
    fromMs: number,
    untilMs: number
  ): Effect.Effect<ReadonlyArray<Ledger.UsageDay>, Errors.StoreError> => {
    const firstWhole = Math.ceil(fromMs / DAY_MS) * DAY_MS
    const endWhole = Math.floor(untilMs / DAY_MS) * DAY_MS
    const read =
      firstWhole >= endWhole
        ? usageFromRows(partnerId, fromMs, untilMs)
        : Effect.map(
            Effect.all([
              fromMs < firstWhole ? usageFromRows(partnerId, fromMs, firstWhole) : Effect.succeed([]),
              sql<Ledger.UsageDay>`SELECT day_start_ms, spent_minor FROM ledger_usage_days
                WHERE partner_id = ${partnerId} AND day_start_ms >= ${firstWhole} AND day_start_ms < ${endWhole}
                ORDER BY day_start_ms`,
              endWhole < untilMs ? usageFromRows(partnerId, endWhole, untilMs) : Effect.succeed([])
            ]),
            (parts) => parts.flat()
          )
    return read.pipe(Effect.mapError(toStoreError("usageByDay", partnerId)))
  }

  return { listEntries, countEntries, streamEntries, usageByDay }
}

/**
 * What a movement writes beside its entries so reads need not count rows (migration 0027): each
 * entry's place in the partner's ledger (`account_seq`) and among the partner's rows of its type
 * (`type_seq`), the per-type counts and newest time on the account row, and daily usage per UTC
 * day. Pure: the store applies the result under the account lock, in the movement's transaction.
 */
import { Ledger } from "@frank/core"

/** How many entries of each type a partner has; the columns `<type>_count` of ledger_accounts. */
export type TypeCounts = Readonly<Record<Ledger.TransactionType, number>>

/** The counters of ledger_accounts a movement reads under the lock and writes back. */
export interface EntryCounters {
  /** Entries of every type: the newest `account_seq`. */
  readonly entryCount: number
  readonly byType: TypeCounts
  /** occurred_at of the newest entry, undefined before the first. */
  readonly lastEntryAt: number | undefined
}

/** The account row's counter columns, as the SQL client returns them (camelCased). */
export interface CounterColumns {
  readonly entryCount: number
  readonly topupCount: number
  readonly reservationCount: number
  readonly confirmCount: number
  readonly refundCount: number
  readonly debitCount: number
  readonly bonusReversalCount: number
  readonly lastEntryAt: number | null
}

/** The columns of ledger_accounts that hold the counters, for SELECT lists. */
export const COUNTER_COLUMNS =
  "entry_count, topup_count, reservation_count, confirm_count, refund_count, debit_count, bonus_reversal_count, last_entry_at"

/** The column holding the count of one type; a closed set, so safe to splice into SQL. */
export const typeCountColumn = (type: Ledger.TransactionType): string => `${type}_count`

export const emptyCounters: EntryCounters = {
  entryCount: 0,
  byType: { topup: 0, reservation: 0, confirm: 0, refund: 0, debit: 0, bonus_reversal: 0 },
  lastEntryAt: undefined
}

export const toCounters = (row: CounterColumns | undefined): EntryCounters =>
  row === undefined
    ? emptyCounters
    : {
        entryCount: row.entryCount,
        byType: {
          topup: row.topupCount,
          reservation: row.reservationCount,
          confirm: row.confirmCount,
          refund: row.refundCount,
          debit: row.debitCount,
          bonus_reversal: row.bonusReversalCount
        },
        lastEntryAt: row.lastEntryAt ?? undefined
      }

/** An entry with its places, as inserted. */
export interface NumberedEntry {
  readonly entry: Ledger.NewLedgerEntry
  readonly accountSeq: number
  readonly typeSeq: number
}

/** Numbers `entries` after what `counters` already counts, in the order they are written. */
export const numberEntries = (
  counters: EntryCounters,
  entries: ReadonlyArray<Ledger.NewLedgerEntry>
): { readonly numbered: ReadonlyArray<NumberedEntry>; readonly counters: EntryCounters } => {
  const byType = { ...counters.byType }
  let entryCount = counters.entryCount
  let lastEntryAt = counters.lastEntryAt
  const numbered = entries.map((entry) => {
    byType[entry.type] += 1
    entryCount += 1
    lastEntryAt = lastEntryAt === undefined ? entry.occurredAt : Math.max(lastEntryAt, entry.occurredAt)
    return { entry, accountSeq: entryCount, typeSeq: byType[entry.type] }
  })
  return { numbered, counters: { entryCount, byType, lastEntryAt } }
}

/** The movement's usage per UTC day; days its rows do not touch are absent. */
export const usageDeltas = (
  entries: ReadonlyArray<Ledger.NewLedgerEntry>
): ReadonlyArray<{ readonly dayStartMs: number; readonly spentMinor: number }> => {
  const byDay = new Map<number, number>()
  for (const e of entries) {
    // The same rows sumUsageByDay counts: confirms (a zero one too) and refunds not tied to a task.
    if (e.type !== "confirm" && !(e.type === "refund" && e.taskId === null)) continue
    const day = Ledger.dayStart(e.occurredAt)
    byDay.set(day, (byDay.get(day) ?? 0) + Ledger.usageContribution(e))
  }
  return [...byDay].map(([dayStartMs, spentMinor]) => ({ dayStartMs, spentMinor }))
}

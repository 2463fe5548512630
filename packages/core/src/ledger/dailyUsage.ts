/**
 * Daily usage (spec "Ledger and usage"): confirmed spend per UTC day = confirm rows minus refunds
 * not tied to a task. Refunds tied to a task only release holds and were never spend.
 */
import { Schema } from "effect"
import { type Minor, minorToFranks } from "../internal/money.js"
import type { LedgerEntry } from "./Entry.js"
import { DAY_MS } from "../timeUnits.js"
import { iso } from "../isoTime.js"

/** Longest range one request may ask for; the series is zero-filled, so this bounds its size. */
export const MAX_USAGE_RANGE_DAYS = 366

/** Sparse per-day sums as a store returns them. */
export interface UsageDay {
  /** Epoch ms of 00:00 UTC of the day. */
  readonly dayStartMs: number
  readonly spentMinor: Minor
}

/** The contribution of one row to daily usage. */
export const usageContribution = (e: Pick<LedgerEntry, "type" | "taskId" | "amountMinor">): Minor =>
  e.type === "confirm" ? e.amountMinor : e.type === "refund" && e.taskId === null ? -e.amountMinor : 0

/** The start (UTC midnight, ms) of the day holding a moment. */
export const dayStart = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS

/** Reference implementation over rows, used by the memory store and to check SQL stores. */
export const sumUsageByDay = (entries: Iterable<LedgerEntry>, fromMs: number, untilMs: number): UsageDay[] => {
  const byDay = new Map<number, Minor>()
  for (const e of entries) {
    if (e.occurredAt < fromMs || e.occurredAt >= untilMs) continue
    const c = usageContribution(e)
    if (e.type !== "confirm" && c === 0) continue
    const d = dayStart(e.occurredAt)
    byDay.set(d, (byDay.get(d) ?? 0) + c)
  }
  return [...byDay.entries()].sort(([a], [b]) => a - b).map(([dayStartMs, spentMinor]) => ({ dayStartMs, spentMinor }))
}

export const DailyUsage = Schema.Struct({
  dateFrom: Schema.String,
  dateTo: Schema.String,
  days: Schema.Array(Schema.Struct({ date: Schema.String, spent: Schema.Number })),
  totalSpent: Schema.Number
}).annotations({ identifier: "DailyUsage" })
export type DailyUsage = typeof DailyUsage.Type

const isoDate = (ms: number) => iso(ms).slice(0, 10)

/** Zero-filled series of whole UTC days from the day of `fromMs` up to the day before `untilMs`. */
export const dailyUsageView = (sparse: ReadonlyArray<UsageDay>, fromMs: number, untilMs: number): DailyUsage => {
  const byDay = new Map(sparse.map((d) => [d.dayStartMs, d.spentMinor]))
  const days: Array<{ date: string; spent: number }> = []
  let total = 0
  const lastDay = dayStart(untilMs - 1)
  for (let d = dayStart(fromMs); d <= lastDay; d += DAY_MS) {
    const spent = byDay.get(d) ?? 0
    total += spent
    days.push({ date: isoDate(d), spent: minorToFranks(spent) })
  }
  return { dateFrom: isoDate(dayStart(fromMs)), dateTo: isoDate(lastDay), days, totalSpent: minorToFranks(total) }
}

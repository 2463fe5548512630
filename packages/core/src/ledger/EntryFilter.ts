/**
 * Filters of the transactions list and export, as the store receives them: already validated,
 * with dates as a half-open range of epoch milliseconds.
 */
import type { Attribution, TransactionType } from "./Entry.js"
import { DAY_MS } from "../timeUnits.js"

/** Which ledger entries a listing or export selects: type, attribution, time range. */
export interface EntryFilter {
  readonly type?: TransactionType | undefined
  /** Only rows attributed to this payer (top-ups); undefined means all rows. */
  readonly attribution?: Attribution | undefined
  /** Inclusive lower bound, epoch ms. */
  readonly fromMs?: number | undefined
  /** Exclusive upper bound, epoch ms. */
  readonly untilMs?: number | undefined
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/

/**
 * Parses an ISO 8601 date or date-time. A date-only upper bound covers that whole UTC day, so
 * `dateTo=2026-11-01` includes rows written at 23:59 that day.
 */
export const parseIsoBound = (text: string, bound: "from" | "to"): number | undefined => {
  if (!ISO_8601.test(text)) return undefined
  const ms = Date.parse(DATE_ONLY.test(text) ? `${text}T00:00:00Z` : text)
  if (Number.isNaN(ms)) return undefined
  if (bound === "from") return ms
  return DATE_ONLY.test(text) ? ms + DAY_MS : ms + 1
}

export const matchesFilter = (
  e: { type: TransactionType; attribution: Attribution | null; occurredAt: number },
  f: EntryFilter
): boolean =>
  (f.type === undefined || e.type === f.type) &&
  (f.attribution === undefined || e.attribution === f.attribution) &&
  (f.fromMs === undefined || e.occurredAt >= f.fromMs) &&
  (f.untilMs === undefined || e.occurredAt < f.untilMs)

/**
 * Running totals of a partner's account and the fold that derives them from ledger entries.
 * The store keeps the totals next to the rows (for O(1) reservations under a row lock); the fold
 * is the definition they must always equal, and property tests hold them to it.
 */
import type { Minor } from "../internal/money.js"
import type { NewLedgerEntry } from "./Entry.js"

/** A partner's account in minor units: total credited, used and reserved. */
export interface AccountTotals {
  /** Lifetime credited: top-ups, bonuses and adjustments, less bonus reversals. */
  readonly totalMinor: Minor
  /** Lifetime confirmed spend: confirms and legacy debits, less spend refunds. */
  readonly usedMinor: Minor
  /** Held by open reservations. */
  readonly reservedMinor: Minor
}

/** The totals of an account with no entries. */
export const emptyTotals: AccountTotals = { totalMinor: 0, usedMinor: 0, reservedMinor: 0 }

/** total − used − reserved, the amount a new reservation may take. Never negative by invariant. */
export const availableMinor = (t: AccountTotals): Minor => t.totalMinor - t.usedMinor - t.reservedMinor

export const applyEntry = (
  t: AccountTotals,
  e: Pick<NewLedgerEntry, "type" | "amountMinor" | "taskId">
): AccountTotals => {
  switch (e.type) {
    case "topup":
      return { ...t, totalMinor: t.totalMinor + e.amountMinor }
    case "bonus_reversal":
      return { ...t, totalMinor: t.totalMinor - e.amountMinor }
    case "reservation":
      return { ...t, reservedMinor: t.reservedMinor + e.amountMinor }
    case "confirm":
      return { ...t, reservedMinor: t.reservedMinor - e.amountMinor, usedMinor: t.usedMinor + e.amountMinor }
    case "refund":
      // A refund tied to a task releases its hold; one without a task gives back confirmed spend.
      return e.taskId !== null
        ? { ...t, reservedMinor: t.reservedMinor - e.amountMinor }
        : { ...t, usedMinor: t.usedMinor - e.amountMinor }
    case "debit":
      return { ...t, usedMinor: t.usedMinor + e.amountMinor }
  }
}

/** The account totals that a list of entries adds up to. */
export const foldEntries = (
  entries: Iterable<Pick<NewLedgerEntry, "type" | "amountMinor" | "taskId">>
): AccountTotals => {
  let totals = emptyTotals
  for (const e of entries) totals = applyEntry(totals, e)
  return totals
}

/** The invariants every stored account satisfies; the SQL schema backs them with CHECK constraints. */
export const totalsAreValid = (t: AccountTotals): boolean =>
  Number.isSafeInteger(t.totalMinor) &&
  Number.isSafeInteger(t.usedMinor) &&
  Number.isSafeInteger(t.reservedMinor) &&
  t.usedMinor >= 0 &&
  t.reservedMinor >= 0 &&
  availableMinor(t) >= 0

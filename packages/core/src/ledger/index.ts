/**
 * The `Ledger` namespace: accounts, entries, holds and their errors, the `Ledger` service and its
 * store port, usage by day and the CSV export; expiring bonus grants, their sweep and balance alerts.
 */
export { type AccountTotals, availableMinor, emptyTotals, foldEntries, totalsAreValid } from "./Account.js"
export { EntryKind, type LedgerEntry, type NewLedgerEntry, TransactionType } from "./Entry.js"
export { type EntryFilter, parseIsoBound } from "./EntryFilter.js"
export type { Hold } from "./Hold.js"
export type { CreditGrant, GrantDraw } from "./CreditGrant.js"
export type { AlertState, BalanceAlert } from "./BalanceAlert.js"
export { Ledger } from "./Ledger.js"
export {
  HoldAlreadySettled,
  HoldNotFound,
  InsufficientFunds,
  type LedgerError,
  ReferenceConflict
} from "./LedgerError.js"
export type { EntryPage } from "./LedgerStore.js"
export { GrantExpiry } from "./GrantExpiry.js"
export { CSV_EXPORT_MAX_ROWS, csvExportStream } from "./csvExport.js"
export { dailyUsageView, dayStart, sumUsageByDay, type UsageDay, usageContribution } from "./dailyUsage.js"

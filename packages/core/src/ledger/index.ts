export * from "./Account.js"
export * from "./Balance.js"
export * from "./csvExport.js"
export * from "./dailyUsage.js"
export * from "./Entry.js"
export * from "./EntryFilter.js"
export * from "./Hold.js"
export * from "./labels.js"
export * from "./Ledger.js"
export * from "./LedgerError.js"
export * from "./LedgerStore.js"
export * as LedgerRules from "./rules.js"
export type {
  Decision,
  Snapshot,
  RuleContext,
  MovementResult,
  HoldResult,
  CreditCommand,
  OutflowCommand,
  ReserveCommand,
  ConfirmCommand,
  RefundCommand
} from "./rules.js"
export * from "./ledgerEvents.js"
export * from "./lowBalance.js"

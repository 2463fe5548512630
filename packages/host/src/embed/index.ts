/**
 * `@frank/host/embed`: Frank inside an existing backend, without Effect. `createFrank` answers
 * plain async methods over the engine; failures reject with `FrankError` (`code`, `status`,
 * `details`, as the partner API answers them).
 */
export { createFrank, type Frank } from "./createFrank.js"
export { FrankError } from "./FrankError.js"
export type { FrankApi } from "./FrankApi.js"
export type { FrankDatabase, DatabaseOptions } from "./database.js"
export type { FrankOptions, FrankSettings } from "./options.js"
export type { FrankTransaction } from "./transactions.js"
export type { FrankWorker } from "./worker.js"
export type {
  Balance,
  ConfirmCommand,
  CreditCommand,
  EntryFilter,
  FrankLedger,
  HoldResult,
  MovementResult,
  OutflowCommand,
  RefundCommand,
  ReserveCommand
} from "./ledgerApi.js"
export type {
  ChangeKeyCommand,
  FrankKeys,
  FrankPartners,
  FrankSessions,
  IssuedKey,
  IssueKeyCommand,
  KeyView,
  SessionToken
} from "./accessApi.js"
export type {
  DeliveryFilter,
  DeliveryPage,
  EmittedEvent,
  EndpointChange,
  FrankDeliveries,
  FrankEndpoints,
  NewEndpoint,
  RecoveryRequest,
  RecoveryResult,
  WebhookEndpoint
} from "./webhooksApi.js"
export type { FrankTasks, Launched, LaunchTaskRequest, Reported, TaskPage } from "./tasksApi.js"
export type {
  CreateInvoiceInput,
  EstimateRequest,
  FrankInvoices,
  FrankPayments,
  FrankPricing,
  InvoiceDocument,
  InvoiceHistory,
  NewPaymentLink,
  NotificationOutcome,
  PaymentLink
} from "./billingApi.js"
export type { FrankFiles, ImportRequest, OpenedFile } from "./filesApi.js"

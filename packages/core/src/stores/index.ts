/**
 * `@frank/core/stores`: the store ports, what an adapter implements to keep Frank's state in a
 * database of its own (the SQL and memory stores of `@frank/adapters` and `@frank/core/testing` are
 * two such adapters). Code that only uses the engine never names them; they are apart from the root
 * so that the root lists the product and this entry the contract a store must keep.
 */
export { ApiKeyStore, type ApiKeyStoreShape } from "../access/ApiKeyStore.js"
export { PartnerStore, type PartnerStoreShape } from "../access/Partner.js"
export { SessionStore, type SessionStoreShape } from "../access/Session.js"
export { AuditStore, type AuditStoreShape } from "../audit/AuditStore.js"
export { EventStore, type EventStoreShape } from "../events/EventStore.js"
export { BlobStore, type BlobStoreShape } from "../files/BlobStore.js"
export { StoredFileStore, type StoredFileStoreShape } from "../files/StoredFileStore.js"
export { CompanyProfileStore, type CompanyProfileStoreShape } from "../invoices/CompanyProfileStore.js"
export { InvoiceStore, type InvoiceStoreShape } from "../invoices/InvoiceStore.js"
export {
  type DueGrant,
  LedgerStore,
  type LedgerStoreShape,
  type NewBalanceAlert,
  type TransactRequest
} from "../ledger/LedgerStore.js"
export type { Decision, Snapshot } from "../ledger/rules.js"
export { PaymentStore, type PaymentStoreShape } from "../payments/PaymentStore.js"
export { RateLimitStore, type RateLimitStoreShape } from "../ratelimit/RateLimitStore.js"
export { TariffStore, type TariffStoreShape } from "../tariff/TariffStore.js"
export { TaskStore, type TaskStoreShape } from "../tasks/TaskStore.js"
export type { AttemptBucket, AttemptRecord } from "../webhooks/Delivery.js"
export { DeliveryLog, type DeliveryLogShape } from "../webhooks/store/DeliveryLog.js"
export { DeliveryQueue, type DeliveryQueueShape } from "../webhooks/store/DeliveryQueue.js"
export { EndpointStore, type EndpointStoreShape } from "../webhooks/store/EndpointStore.js"
export { WebhookRetentionStore, type WebhookRetentionStoreShape } from "../webhooks/store/WebhookRetentionStore.js"
export { type WebhookStores, type WebhookStoresShape, webhookStoresContext } from "../webhooks/store/WebhookStores.js"

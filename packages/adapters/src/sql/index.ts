/** Frank on SQL: the database clients, the migrations and the SQL stores, one namespace per module. */
export * as PgliteDatabase from "./PgliteDatabase.js"
export * as PostgresDatabase from "./PostgresDatabase.js"
export * as DatabaseSchema from "./DatabaseSchema.js"
export * as Migrations from "./migrations.js"
export * as TestDatabase from "./TestDatabase.js"
export { pgliteTemplateDirectory, pgliteVersion, templateUsable, writePgliteTemplate } from "./pgliteTemplate.js"
export { clientOptions } from "./clientOptions.js"
export { INT8_OID, parseInt8, pgTypes } from "./pgTypes.js"
export { STREAM_PAGE_ROWS } from "./ledgerReads.js"
export * as SqlLedgerStore from "./SqlLedgerStore.js"
export * as SqlAccessStores from "./SqlAccessStores.js"
export * as SqlRateLimitStore from "./SqlRateLimitStore.js"
export * as SqlProcessedEvents from "./SqlProcessedEvents.js"
export * as SqlPaymentStore from "./SqlPaymentStore.js"
export * as SqlSandboxAcquirerStore from "./SqlSandboxAcquirerStore.js"
export * as SqlStoredFileStore from "./SqlStoredFileStore.js"
export * as SqlTaskStore from "./SqlTaskStore.js"
export * as SqlInvoiceStores from "./SqlInvoiceStores.js"
export * as SqlAuditStore from "./SqlAuditStore.js"
export * as PgNotifyAnnouncer from "./PgNotifyAnnouncer.js"
export * as PgChannelListener from "./PgChannelListener.js"
export * as SqlRateLimitCounters from "./SqlRateLimitCounters.js"
export * as SqlIdempotencyStore from "./SqlIdempotencyStore.js"
export * as SqlWebhookStore from "./webhooks/SqlWebhookStore.js"
export {
  checkNotifyPayload,
  MAX_NOTIFY_PAYLOAD_BYTES,
  WEBHOOK_NOTIFY_CHANNEL_SUFFIX,
  WEBHOOK_NOTIFY_PAYLOAD,
  webhookNotifyChannel
} from "./webhooks/webhookNotify.js"

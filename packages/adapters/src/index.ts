/**
 * @frank/adapters: one namespace per module, Effect style. A store or service module exports
 * `make` (the implementation), `layer` (or `layer(arg)` when it needs an argument) and, where it
 * has options, `layerWith(options)`: `SqlLedgerStore.layer`, `NodeSecrets.layer(pepper)`,
 * `HttpWebhookTransport.layerWith({ allowPrivateNetwork })`. Files under `internal/` are not exported.
 */
export {
  PgliteDatabase,
  PostgresDatabase,
  DatabaseSchema,
  Migrations,
  TestDatabase,
  SqlLedgerStore,
  SqlAccessStores,
  SqlRateLimitStore,
  SqlRateLimitCounters,
  SqlProcessedEvents,
  SqlPaymentStore,
  SqlSandboxAcquirerStore,
  SqlStoredFileStore,
  SqlTaskStore,
  SqlInvoiceStores,
  SqlIdempotencyStore,
  SqlAuditStore,
  PgNotifyAnnouncer,
  PgChannelListener,
  pgliteTemplateDirectory,
  pgliteVersion,
  templateUsable,
  writePgliteTemplate,
  clientOptions,
  INT8_OID,
  parseInt8,
  pgTypes,
  STREAM_PAGE_ROWS,
  checkNotifyPayload,
  MAX_NOTIFY_PAYLOAD_BYTES,
  SqlWebhookStore,
  WEBHOOK_NOTIFY_CHANNEL_SUFFIX,
  WEBHOOK_NOTIFY_PAYLOAD,
  webhookNotifyChannel
} from "./sql/index.js"
// Memory stores
export * as MemoryLedgerStore from "./memory/MemoryLedgerStore.js"
export * as MemoryTaskStore from "./memory/MemoryTaskStore.js"
export * as MemoryAccessStores from "./memory/MemoryAccessStores.js"
export * as MemoryRateLimitStore from "./memory/MemoryRateLimitStore.js"
export * as MemoryProcessedEvents from "./memory/MemoryProcessedEvents.js"
export * as MemoryIdempotencyStore from "./memory/MemoryIdempotencyStore.js"
// A namespace of core's testing entry, re-exported beside the other memory stores.
export { MemoryWebhookStore } from "./memory/MemoryWebhookStore.js"
// Node implementations of core's crypto ports
export * as NodeSecrets from "./node/NodeSecrets.js"
export * as NodeWebhookSigner from "./webhooks/NodeWebhookSigner.js"
// Outbound HTTP
export * as GuardedDispatcher from "./net/GuardedDispatcher.js"
export type { GuardedConnectorOptions } from "./net/guardedConnector.js"
export type { HostLookup, ResolvedAddress } from "./net/hostLookup.js"
export type { SocketHold } from "./net/SocketHold.js"
export { ADDRESS_REFUSED_CODE, AddressRefusedError, isAddressRefusedError } from "./net/AddressRefusedError.js"
export * as HttpWebhookTransport from "./webhooks/HttpWebhookTransport.js"
// Files
export * as FileBlobStore from "./files/FileBlobStore.js"
export * as HttpMediaFetcher from "./files/HttpMediaFetcher.js"
export * as NodeMediaProbe from "./files/NodeMediaProbe.js"
// Sandboxes
export * as SandboxAcquirer from "./payments/SandboxAcquirer.js"
export {
  SandboxAcquirerStore,
  type SandboxAcquirerStoreShape,
  type SandboxPayment
} from "./payments/SandboxAcquirerStore.js"
export * as MemorySandboxAcquirerStore from "./payments/MemorySandboxAcquirerStore.js"
export * as SandboxNotification from "./payments/sandboxNotification.js"
export * as SandboxBank from "./sandbox/bank/SandboxBank.js"
export { SandboxInvoiceNotFound, SandboxInvoiceSettled } from "./sandbox/bank/SandboxBankError.js"
export * as SandboxGeneration from "./sandbox/generation/SandboxGeneration.js"
// The partner cabinet
export * as Cabinet from "./cabinet/Cabinet.js"

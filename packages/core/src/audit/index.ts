/**
 * The `Audit` namespace: the audit log of partner-visible changes (who, what, from which request),
 * its store port, the `AuditLog` service with its retention, and the audited service layers.
 */
export {
  type AuditActor,
  type AuditActorType,
  type AuditChange,
  type AuditOrigin,
  type AuditRecord,
  systemOrigin
} from "./AuditRecord.js"
export { auditIdempotencyKey, setAuditOrigin, withAuditOrigin } from "./AuditContext.js"
export { type AuditConfig, AuditLog, type AuditLogShape, defaultAuditConfig } from "./AuditLog.js"
export { type AuditCursor, decodeAuditCursor } from "./auditCursor.js"
export { AuditedAccess, AuditedInvoices, AuditedLedger, AuditedPayments, AuditedWebhooks } from "./Audited.js"

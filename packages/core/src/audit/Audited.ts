/**
 * Layers that put the audit log in front of a service: each takes the service from its input and
 * provides the same tag with every change recorded (`Audit.AuditedAccess.pipe(Layer.provide(
 * Access.layer))`). Everything that reaches the service through its tag (the partner API, the
 * cabinet, the admin API, an embedder's code) is then audited, with the origin the edge set.
 */
import { Effect, Layer } from "effect"
import { Access } from "../access/Access.js"
import { Invoices } from "../invoices/Invoices.js"
import { Ledger } from "../ledger/Ledger.js"
import { Payments } from "../payments/Payments.js"
import { Webhooks } from "../webhooks/Webhooks.js"
import { AuditLog } from "./AuditLog.js"
import { auditedAccess } from "./internal/auditedAccess.js"
import { auditedInvoices, auditedPayments } from "./internal/auditedBilling.js"
import { auditedLedger } from "./internal/auditedLedger.js"
import { auditedWebhooks } from "./internal/auditedWebhooks.js"

/** `Access` whose partner, session, sign-in and key changes are recorded. */
export const AuditedAccess: Layer.Layer<Access, never, Access | AuditLog> = Layer.effect(
  Access,
  Effect.zipWith(Access, AuditLog, auditedAccess)
)

/** `Webhooks` whose endpoint changes, tests, recoveries and replays are recorded. */
export const AuditedWebhooks: Layer.Layer<Webhooks, never, Webhooks | AuditLog> = Layer.effect(
  Webhooks,
  Effect.zipWith(Webhooks, AuditLog, auditedWebhooks)
)

/** `Invoices` whose profile saves, new invoices and SBP links are recorded. */
export const AuditedInvoices: Layer.Layer<Invoices, never, Invoices | AuditLog> = Layer.effect(
  Invoices,
  Effect.zipWith(Invoices, AuditLog, auditedInvoices)
)

/** `Payments` whose new top-up links are recorded. */
export const AuditedPayments: Layer.Layer<Payments, never, Payments | AuditLog> = Layer.effect(
  Payments,
  Effect.zipWith(Payments, AuditLog, auditedPayments)
)

/** `Ledger` whose credits (bonus grants with expiry and priority included) and balance alerts are recorded. */
export const AuditedLedger: Layer.Layer<Ledger, never, Ledger | AuditLog> = Layer.effect(
  Ledger,
  Effect.zipWith(Ledger, AuditLog, auditedLedger)
)

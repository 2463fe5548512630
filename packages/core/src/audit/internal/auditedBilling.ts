/**
 * Billing with every partner change recorded: the company profile, invoices (created, SBP link)
 * and top-up links. A top-up link answered again for a repeated key changed nothing: no record.
 */
import type { InvoicesShape } from "../../invoices/Invoices.js"
import type { PaymentsShape } from "../../payments/Payments.js"
import type { AuditLogShape } from "../AuditLog.js"
import { fieldsOf } from "./fieldsOf.js"

/** `invoices` whose partner changes `log` records. */
export const auditedInvoices = (invoices: InvoicesShape, log: AuditLogShape): InvoicesShape => ({
  ...invoices,
  saveProfile: (partnerId, input) =>
    log.recorded(
      partnerId,
      {
        action: "company_profile.updated",
        target: { type: "company_profile", id: partnerId },
        changes: fieldsOf(input, { expectedRevision: "revision" })
      },
      invoices.saveProfile(partnerId, input)
    ),
  create: (partnerId, input) =>
    log.recorded(
      partnerId,
      (i) => ({ action: "invoice.created", target: { type: "invoice", id: i.id }, changes: fieldsOf(input) }),
      invoices.create(partnerId, input)
    ),
  sbpLink: (partnerId, id) =>
    log.recorded(
      partnerId,
      { action: "invoice.sbp_link_created", target: { type: "invoice", id }, changes: ["sbpLink"] },
      invoices.sbpLink(partnerId, id)
    )
})

/** `payments` whose new top-up links `log` records. */
export const auditedPayments = (payments: PaymentsShape, log: AuditLogShape): PaymentsShape => ({
  ...payments,
  createLink: (partnerId, input) =>
    log.recorded(
      partnerId,
      (link) =>
        link.replayed
          ? undefined
          : {
              action: "top_up_link.created",
              target: { type: "payment", id: link.payment.id },
              changes: fieldsOf({ amountRub: input.amountRub, description: input.description })
            },
      payments.createLink(partnerId, input)
    )
})

/**
 * The event a legal invoice's status change emits (docs/contract.md §5 "event data"):
 * `billing.invoice.status_changed` with `{invoiceId, status, previousStatus, amountRub}`. Its id
 * derives from `invoiceId:status`, so a repeated report of the same change is one event.
 */
import type { EventDraft } from "../../events/Event.js"
import type { Invoice } from "../Invoice.js"
import type { InvoiceStatus } from "./InvoiceState.js"

export const statusChangedEvent = (invoice: Invoice, previousStatus: InvoiceStatus): EventDraft => ({
  type: "billing.invoice.status_changed",
  sourceId: `${invoice.id}:${invoice.status}`,
  data: { invoiceId: invoice.id, status: invoice.status, previousStatus, amountRub: invoice.amountRub }
})

/**
 * The legal-invoice status machine as a pure function of (current status, status the bank
 * reports). The spec leaves states and transitions open ("not shown"); these are Frank's:
 *
 * | from     | bank reports | to       | why                                                        |
 * |----------|--------------|----------|------------------------------------------------------------|
 * | issued   | paid         | paid     | money arrived: credit the ledger                           |
 * | issued   | canceled     | canceled | withdrawn at the bank                                      |
 * | issued   | expired      | expired  | the payment term passed                                    |
 * | expired  | paid         | paid     | a late bank transfer still arrived: the money is real      |
 * | expired  | canceled     | canceled | withdrawn after the term                                   |
 *
 * `paid` and `canceled` are terminal. A report of the current status changes nothing; a report
 * that would go back (an old "issued" after "expired", "paid" after "canceled", anything after
 * "paid") is refused, so duplicated and out-of-order reports are harmless.
 */
import { Schema } from "effect"

/** An invoice's states: issued, then paid, canceled or expired (the last three are final). */
export const InvoiceStatus = Schema.Literal("issued", "paid", "canceled", "expired")
export type InvoiceStatus = typeof InvoiceStatus.Type

export const isTerminal = (s: InvoiceStatus): boolean => s === "paid" || s === "canceled"

/** Whether a payer can still pay it (PDF and SBP link are still useful). */
export const isPayable = (s: InvoiceStatus): boolean => s === "issued" || s === "expired"

export type InvoiceTransition =
  | { readonly _tag: "Moved"; readonly from: InvoiceStatus; readonly to: InvoiceStatus }
  | { readonly _tag: "Unchanged" }
  | { readonly _tag: "Refused"; readonly reason: "terminal" | "backwards" }

const allowed: Readonly<Record<InvoiceStatus, ReadonlyArray<InvoiceStatus>>> = {
  issued: ["paid", "canceled", "expired"],
  expired: ["paid", "canceled"],
  paid: [],
  canceled: []
}

export const transition = (current: InvoiceStatus, reported: InvoiceStatus): InvoiceTransition => {
  if (current === reported) return { _tag: "Unchanged" }
  if (allowed[current].includes(reported)) return { _tag: "Moved", from: current, to: reported }
  return { _tag: "Refused", reason: isTerminal(current) ? "terminal" : "backwards" }
}

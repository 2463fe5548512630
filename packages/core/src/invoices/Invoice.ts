/**
 * A legal-entity invoice (spec "Legal-entity invoice": statuses, amount, credit date). It is
 * issued by the bank for the partner's company profile; the record keeps the requisites it was
 * issued for, so a later profile change never rewrites an issued invoice.
 */
import type { CompanyRequisites } from "./CompanyProfile.js"
import type { InvoiceId, PartnerId } from "../EntityIds.js"
import type { InvoiceStatus } from "./internal/InvoiceState.js"

/** Spec "Limits": amountRub integer 1..100000; comment up to 140 characters. */
export const MIN_INVOICE_RUB = 1
export const MAX_INVOICE_RUB = 100_000
export const MAX_COMMENT_LENGTH = 140

/** 1 RUB = 1 ₣ = 100 minor units. */
export const MINOR_PER_RUB = 100

/** A bank invoice for a top-up: its number, amount, status and bank reference. */
export interface Invoice {
  readonly partnerId: PartnerId
  readonly id: InvoiceId
  /** The number the bank printed on the invoice. */
  readonly number: string
  readonly status: InvoiceStatus
  readonly amountRub: number
  readonly comment: string | null
  /** The profile revision the invoice was issued for, and its requisites at that revision. */
  readonly profileRevision: number
  readonly payer: CompanyRequisites
  /** The bank's id of the invoice. */
  readonly bankInvoiceId: string
  readonly createdAt: number
  readonly updatedAt: number
  /** Payment term the bank set; null when it sets none. */
  readonly dueAt: number | null
  /** When the ledger was credited (status paid). */
  readonly creditedAt: number | null
  /** The ledger entry of the credit (status paid). */
  readonly transactionId: string | null
}

/** The invoice after a status move; a move to paid records the credit. */
export const moved = (
  invoice: Invoice,
  to: InvoiceStatus,
  now: number,
  credit?: { readonly transactionId: string }
): Invoice => ({
  ...invoice,
  status: to,
  updatedAt: now,
  creditedAt: credit === undefined ? invoice.creditedAt : now,
  transactionId: credit === undefined ? invoice.transactionId : credit.transactionId
})

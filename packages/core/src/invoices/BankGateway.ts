/**
 * The port to the bank's business invoicing (spec "Legal-entity invoice": created "via the
 * bank's business invoicing"). Frank's platform account receives the transfer; the bank issues
 * the invoice to the partner's company, renders its PDF, makes SBP B2B payment links and knows
 * whether it was paid.
 *
 * The bank is the authority on an invoice's status. Frank never trusts a notification's content:
 * a notification (or a partner's refresh) only makes Frank ask `fetchStatus`, and the answer runs
 * through the pure status machine (InvoiceState.ts). An adapter for a real bank implements these
 * four calls over the bank's API; the sandbox bank of the adapters package implements them on
 * its own tables.
 */
import type { InvoiceId, PartnerId } from "../EntityIds.js"
import { Context, type Effect } from "effect"
import type { CompanyRequisites } from "./CompanyProfile.js"
import type { BankUnavailable } from "./InvoiceError.js"
import type { InvoiceStatus } from "./internal/InvoiceState.js"

export interface BankInvoiceRequest {
  readonly partnerId: PartnerId
  /** Frank's invoice id: the bank keeps it as the external reference and prints it in the purpose. */
  readonly invoiceId: InvoiceId
  readonly amountRub: number
  readonly comment: string | null
  readonly payer: CompanyRequisites
  readonly issuedAt: number
}

export interface BankInvoice {
  readonly bankInvoiceId: string
  /** The number printed on the invoice. */
  readonly number: string
  readonly status: InvoiceStatus
  readonly dueAt: number | null
}

/** Which invoice a call is about: the bank's id plus Frank's reference (adapters may use either). */
export interface BankInvoiceRef {
  readonly partnerId: PartnerId
  readonly invoiceId: InvoiceId
  readonly bankInvoiceId: string
}

export interface BankStatusReport {
  readonly status: InvoiceStatus
}

/** The invoice document: the bytes, or where the bank serves them (the API then answers 302). */
export type InvoiceDocument =
  | { readonly _tag: "Pdf"; readonly bytes: Uint8Array; readonly filename: string }
  | { readonly _tag: "Redirect"; readonly url: string }

export interface SbpLink {
  /** Opens the payer's bank (or the sandbox page); also the content of the QR code. */
  readonly url: string
  readonly expiresAt: number | null
}

/** The operations of the bank gateway port. */
export interface BankGatewayShape {
  /** Issues the invoice at the bank. */
  readonly createInvoice: (request: BankInvoiceRequest) => Effect.Effect<BankInvoice, BankUnavailable>
  /** What the bank knows of the invoice now (issued, paid, canceled, expired). */
  readonly fetchStatus: (ref: BankInvoiceRef) => Effect.Effect<BankStatusReport, BankUnavailable>
  /** The invoice's PDF as the bank renders it. */
  readonly fetchPdf: (ref: BankInvoiceRef) => Effect.Effect<InvoiceDocument, BankUnavailable>
  /** A link to pay the invoice through the SBP (also the QR code's content). */
  readonly createSbpLink: (ref: BankInvoiceRef) => Effect.Effect<SbpLink, BankUnavailable>
}

/** Port: the bank that issues invoices and reports their payment. */
export class BankGateway extends Context.Tag("@frank/core/BankGateway")<BankGateway, BankGatewayShape>() {}

/**
 * Top-ups (payment links), legal invoices and the price catalog through Promises.
 */
import { type Ids, Invoices, Payments, Pricing } from "@frank/core"
import { type Context, Effect, Either } from "effect"
import { ids } from "./ids.js"
import { withPartner, withService } from "./partner.js"
import type { Run } from "./run.js"
import { decodeInput } from "./validation.js"

type PaymentsService = Context.Tag.Service<typeof Payments.Payments>
type InvoicesService = Context.Tag.Service<typeof Invoices.Invoices>
type Success<F extends (...args: never) => Effect.Effect<unknown, unknown, unknown>> = Effect.Effect.Success<
  ReturnType<F>
>
/** A top-up request: the amount and the caller's idempotency key. */
export type NewPaymentLink = Parameters<PaymentsService["createLink"]>[1]
/** The payment created and the acquirer's page to send the payer to. */
export type PaymentLink = Success<PaymentsService["createLink"]>
/** What a refresh did: the payment and the transition applied, if any. */
export type NotificationOutcome = Payments.NotificationOutcome
/** A legal invoice request: the amount and the profile revision it is issued to. */
export type CreateInvoiceInput = Parameters<InvoicesService["create"]>[1]
/** A page of invoices. */
export type InvoiceHistory = Success<InvoicesService["history"]>
/** An invoice's PDF. */
export type InvoiceDocument = Success<InvoicesService["pdf"]>
/** A price estimate request as the partner API takes it. */
export type EstimateRequest = typeof Pricing.EstimateRequest.Encoded

/** Top-ups by card through the acquirer. */
export interface FrankPayments {
  /** Creates a payment and its link; idempotent by `idempotencyKey`. */
  createLink(partnerId: string, input: NewPaymentLink): Promise<PaymentLink>
  /** The last 50 payments, newest first. */
  history(partnerId: string): Promise<ReadonlyArray<Payments.Payment>>
  /** One payment; PAYMENT_NOT_FOUND (404) when it is not the partner's. */
  get(partnerId: string, paymentId: string): Promise<Payments.Payment>
  /** Asks the acquirer for the payment's status and applies it (recovers a lost notification). */
  refresh(partnerId: string, paymentId: string): Promise<NotificationOutcome>
}

/** Legal invoices (bank transfer) for a partner's company. */
export interface FrankInvoices {
  /** The company profile invoices are issued to, or undefined. */
  getProfile(partnerId: string): Promise<Invoices.CompanyProfile | undefined>
  /** Saves the company profile; PROFILE_INVALID lists every problem. */
  saveProfile(partnerId: string, input: Invoices.ProfileInput): Promise<Invoices.CompanyProfile>
  /** Issues an invoice at the bank; PROFILE_REQUIRED without a profile. */
  create(partnerId: string, input: CreateInvoiceInput): Promise<Invoices.Invoice>
  /** A page of invoices, newest first. */
  history(partnerId: string, page?: number, limit?: number): Promise<InvoiceHistory>
  /** One invoice; INVOICE_NOT_FOUND (404) when it is not the partner's. */
  get(partnerId: string, invoiceId: string): Promise<Invoices.Invoice>
  /** The invoice's PDF. */
  pdf(partnerId: string, invoiceId: string): Promise<InvoiceDocument>
  /** Asks the bank for the invoice's status and applies it (a paid invoice credits the account). */
  refresh(partnerId: string, invoiceId: string): Promise<Invoices.Invoice>
}

/** The price catalog. */
export interface FrankPricing {
  /** Prices a request (in ₣) with the partner's discount; ESTIMATE_REJECTED or VALIDATION_FAILED otherwise. */
  estimate(request: EstimateRequest, discountPercent?: number): Promise<Pricing.Quote>
  /** The catalog as the partner API lists it, with a discount applied. */
  catalog(discountPercent?: number): Promise<Pricing.CatalogView>
}

/** The payments, invoices and pricing APIs over `run`. */
export const makeBillingApi = (run: Run) => {
  const pay = withPartner(run, Payments.Payments)
  const onPayment = <A, E>(
    partnerId: string,
    paymentId: string,
    f: (p: PaymentsService, partner: Ids.PartnerId, id: Ids.PaymentId) => Effect.Effect<A, E>
  ) => pay(partnerId, (p, partner) => Effect.flatMap(ids.payment(paymentId), (id) => f(p, partner, id)))
  const payments: FrankPayments = {
    createLink: (partnerId, input) => pay(partnerId, (p, id) => p.createLink(id, input)),
    history: (partnerId) => pay(partnerId, (p, id) => p.history(id)),
    get: (partnerId, paymentId) => onPayment(partnerId, paymentId, (p, partner, id) => p.get(partner, id)),
    refresh: (partnerId, paymentId) => onPayment(partnerId, paymentId, (p, partner, id) => p.refresh(partner, id))
  }
  const inv = withPartner(run, Invoices.Invoices)
  const onInvoice = <A, E>(
    partnerId: string,
    invoiceId: string,
    f: (i: InvoicesService, partner: Ids.PartnerId, id: Ids.InvoiceId) => Effect.Effect<A, E>
  ) => inv(partnerId, (i, partner) => Effect.flatMap(ids.invoice(invoiceId), (id) => f(i, partner, id)))
  const invoices: FrankInvoices = {
    getProfile: (partnerId) => inv(partnerId, (i, id) => i.getProfile(id)),
    saveProfile: (partnerId, input) => inv(partnerId, (i, id) => i.saveProfile(id, input)),
    create: (partnerId, input) => inv(partnerId, (i, id) => i.create(id, input)),
    history: (partnerId, page, limit) => inv(partnerId, (i, id) => i.history(id, page, limit)),
    get: (partnerId, invoiceId) => onInvoice(partnerId, invoiceId, (i, p, id) => i.get(p, id)),
    pdf: (partnerId, invoiceId) => onInvoice(partnerId, invoiceId, (i, p, id) => i.pdf(p, id)),
    refresh: (partnerId, invoiceId) => onInvoice(partnerId, invoiceId, (i, p, id) => i.refresh(p, id))
  }
  const price = withService(run, Pricing.Pricing)
  const pricing: FrankPricing = {
    estimate: (request, discountPercent = 0) =>
      price((p) =>
        Effect.flatMap(decodeInput(Pricing.EstimateRequest, request), (r) =>
          Either.match(p.estimate(r, discountPercent), { onLeft: Effect.fail, onRight: Effect.succeed })
        )
      ),
    catalog: (discountPercent = 0) => price((p) => Effect.succeed(p.catalogView(discountPercent)))
  }
  return { payments, invoices, pricing }
}

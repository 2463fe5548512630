/**
 * The acquirer port: whoever takes the payer's money. The engine asks it to create a payment and,
 * for reconciliation, to read a payment's status; the acquirer reports status changes by
 * notifications (HTTP callbacks), which the provider authenticates and parses into one typed
 * shape. The sandbox acquirer (adapters) implements it; a real acquirer is another implementation
 * of the same three operations (see docs/decisions.md, "Top-ups").
 */
import { Context, type Effect } from "effect"
import type { PaymentStatus } from "./Payment.js"
import type { PaymentId, PartnerId } from "../EntityIds.js"
import type { PaymentNotificationInvalid, PaymentProviderError } from "./PaymentError.js"

export interface ProviderPaymentRequest {
  /** Our payment id: the acquirer's order id, and the key that makes `createPayment` idempotent. */
  readonly paymentId: PaymentId
  readonly partnerId: PartnerId
  readonly amountRub: number
  readonly description: string | null
}

export interface ProviderPayment {
  readonly providerPaymentId: string
  /** Where the payer pays (the acquirer's checkout page). */
  readonly paymentUrl: string
}

/** A notification as it arrived: the exact body bytes (signatures cover them) and headers with lower-case names. */
export interface RawNotification {
  readonly body: string
  readonly headers: Readonly<Record<string, string | undefined>>
}

/** A notification after the provider authenticated it. */
export interface PaymentNotification {
  /** Our payment id (the order id the acquirer was given). */
  readonly paymentId: string
  readonly providerPaymentId: string
  /** The acquirer's status, mapped onto ours. */
  readonly status: PaymentStatus
  /** The amount the acquirer reports, when it reports one; it must match the payment. */
  readonly amountRub?: number | undefined
}

/** The operations of the payment provider port. */
export interface PaymentProviderShape {
  /** Short name for logs (`sandbox`, …). */
  readonly name: string
  /**
   * Creates the payment at the acquirer. Must be idempotent by `paymentId`: a retried link request
   * (its first attempt may have died after the acquirer answered) calls it again and must get the
   * same payment back, never a second one.
   */
  readonly createPayment: (request: ProviderPaymentRequest) => Effect.Effect<ProviderPayment, PaymentProviderError>
  /** The acquirer's current status of a payment, for reconciling a lost notification. */
  readonly readStatus: (payment: {
    readonly paymentId: PaymentId
    readonly providerPaymentId: string
  }) => Effect.Effect<PaymentStatus, PaymentProviderError>
  /** Authenticates (signature) and parses a notification; anything not authentic is refused. */
  readonly parseNotification: (raw: RawNotification) => Effect.Effect<PaymentNotification, PaymentNotificationInvalid>
}

/** Port: the card payment provider (a sandbox acquirer in adapters). */
export class PaymentProvider extends Context.Tag("@frank/core/PaymentProvider")<
  PaymentProvider,
  PaymentProviderShape
>() {}

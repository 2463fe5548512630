/**
 * The top-up service (spec "Top-ups"): payment links with idempotency keys, the payment history,
 * and the notification path that moves payments and credits the ledger.
 *
 * Creating a link is two steps that never hold a transaction across a network call: first the
 * payment is stored under the partner's Idempotency-Key (one row per key, however many requests
 * race), then the acquirer is asked for it. The acquirer call is idempotent by our payment id, so
 * every racing or retried request may make it and all end with the same payment and URL; a
 * request whose acquirer call failed leaves a pending payment that the retry completes.
 *
 * A notification runs the pure state machine on the locked payment; the move to `confirmed`
 * credits the ledger (1 RUB = 1 ₣, kind `topup`, attribution `personal`, reference = payment id)
 * in the same transaction as the status, and the ledger writes `billing.topup.confirmed` there
 * too. The status lock makes duplicates and races see the confirmed payment and do nothing; the
 * ledger's reference idempotency backs that up.
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import { parseId, PaymentId, type PartnerId } from "../EntityIds.js"
import { Ids } from "../internal/ids.js"
import { Ledger } from "../ledger/Ledger.js"
import type { LedgerError } from "../ledger/LedgerError.js"
import type { StoreError } from "../StoreError.js"
import { Outbox } from "../events/Outbox.js"
import { checkNewPayment, paymentCreditMinor, PAYMENT_HISTORY_SIZE, type Payment } from "./Payment.js"
import {
  PaymentIdempotencyConflict,
  PaymentNotFound,
  PaymentNotificationInvalid,
  type PaymentProviderError,
  PaymentRequestInvalid
} from "./PaymentError.js"
import { type PaymentNotification, PaymentProvider, type RawNotification } from "./PaymentProvider.js"
import { creditsLedger, type PaymentTransition, paymentTransition } from "./PaymentState.js"
import { type PaymentChange, PaymentStore } from "./PaymentStore.js"

export interface NewPaymentLink {
  readonly amountRub: number
  readonly description?: string | undefined
  readonly idempotencyKey: string
}

export interface PaymentLink {
  readonly payment: Payment
  /** True when the key was used before and this is the earlier payment. */
  readonly replayed: boolean
}

/** What a provider notification did: the payment and the transition applied. */
export interface NotificationOutcome {
  readonly payment: Payment
  readonly transition: PaymentTransition
  /** The ledger entry this notification credited; null when it credited nothing. */
  readonly transactionId: string | null
}

/** Every error applying a provider notification may fail with. */
export type NotificationError = PaymentNotFound | PaymentNotificationInvalid | LedgerError | StoreError

export interface PaymentsShape {
  readonly createLink: (
    partnerId: PartnerId,
    input: NewPaymentLink
  ) => Effect.Effect<
    PaymentLink,
    PaymentRequestInvalid | PaymentIdempotencyConflict | PaymentProviderError | StoreError
  >
  /** The last 50 payments, newest first. */
  readonly history: (partnerId: PartnerId) => Effect.Effect<ReadonlyArray<Payment>, StoreError>
  readonly get: (partnerId: PartnerId, id: PaymentId) => Effect.Effect<Payment, PaymentNotFound | StoreError>
  /** Applies an authenticated notification: a legal transition moves the payment, anything else changes nothing. */
  readonly applyNotification: (
    notification: PaymentNotification
  ) => Effect.Effect<NotificationOutcome, NotificationError>
  /** The acquirer's notification as it arrived: authenticated by the provider, then applied. */
  readonly receiveNotification: (raw: RawNotification) => Effect.Effect<NotificationOutcome, NotificationError>
  /** Reads the status at the acquirer and applies it as a notification (recovers a lost notification). */
  readonly refresh: (
    partnerId: PartnerId,
    id: PaymentId
  ) => Effect.Effect<NotificationOutcome, NotificationError | PaymentProviderError>
}

/** Caption detail of the ledger row a payment credits. */
const CREDIT_NOTE = "онлайн-оплата"

/** The payments service: creates payment links and applies provider notifications. */
export class Payments extends Context.Tag("@frank/core/Payments")<Payments, PaymentsShape>() {
  static readonly layer = Layer.effect(
    Payments,
    Effect.gen(function* () {
      const store = yield* PaymentStore
      const provider = yield* PaymentProvider
      const ledger = yield* Ledger
      const outbox = yield* Outbox
      const ids = yield* Ids

      const notFound = (id: string) => new PaymentNotFound({ message: `no payment ${id}` })

      const createLink: PaymentsShape["createLink"] = (partnerId, input) =>
        Effect.gen(function* () {
          const problems = checkNewPayment(input)
          if (problems.length > 0)
            return yield* new PaymentRequestInvalid({ message: problems.join("; "), messages: problems })
          const now = yield* Clock.currentTimeMillis
          const { payment, created } = yield* store.insertOrGet({
            partnerId,
            id: yield* ids.nextId(PaymentId),
            amountRub: input.amountRub,
            description: input.description === undefined || input.description.length === 0 ? null : input.description,
            idempotencyKey: input.idempotencyKey,
            status: "pending",
            providerPaymentId: null,
            paymentUrl: null,
            createdAt: now,
            updatedAt: now
          })
          if (payment.amountRub !== input.amountRub)
            return yield* new PaymentIdempotencyConflict({
              message: `Idempotency-Key was already used for a payment of ${payment.amountRub} RUB; retry with the original amount or use a new key for a new payment`
            })
          if (payment.paymentUrl !== null) return { payment, replayed: !created }
          // First request, a racing one, or a retry after the acquirer call failed: all ask the
          // acquirer, which answers the same payment for the same id.
          const accepted = yield* provider.createPayment({
            paymentId: payment.id,
            partnerId,
            amountRub: payment.amountRub,
            description: payment.description
          })
          const attached = yield* store.attachProvider(partnerId, payment.id, accepted, yield* Clock.currentTimeMillis)
          return { payment: attached ?? payment, replayed: !created }
        })

      const get: PaymentsShape["get"] = (partnerId, id) =>
        Effect.flatMap(store.get(partnerId, id), (p) =>
          p === undefined ? Effect.fail(notFound(id)) : Effect.succeed(p)
        )

      const applyNotification: PaymentsShape["applyNotification"] = (n) =>
        Effect.gen(function* () {
          // The acquirer's notification is where its payment id enters: one that is no id names nothing.
          const id = Option.getOrUndefined(parseId(PaymentId)(n.paymentId))
          const partnerId = id === undefined ? undefined : yield* store.locate(id)
          if (id === undefined || partnerId === undefined) return yield* notFound(n.paymentId)
          const outcome = yield* store.update(partnerId, id, (current) =>
            Effect.gen(function* (): Effect.fn.Return<PaymentChange<NotificationOutcome>, NotificationError> {
              if (current.providerPaymentId !== null && current.providerPaymentId !== n.providerPaymentId)
                return yield* new PaymentNotificationInvalid({
                  message: `notification for payment ${current.id} names acquirer payment ${n.providerPaymentId}, not ${current.providerPaymentId}`
                })
              if (n.amountRub !== undefined && n.amountRub !== current.amountRub)
                return yield* new PaymentNotificationInvalid({
                  message: `notification for payment ${current.id} reports ${n.amountRub} RUB, the payment is ${current.amountRub} RUB`
                })
              const t = paymentTransition(current.status, n.status)
              if (t._tag !== "Moved")
                return { next: undefined, result: { payment: current, transition: t, transactionId: null } }
              // The credit joins this transaction: the status and the money commit together.
              const transactionId = creditsLedger(t)
                ? (yield* ledger.credit(partnerId, {
                    kind: "topup",
                    amountMinor: paymentCreditMinor(current),
                    attribution: "personal",
                    reference: current.id,
                    note: CREDIT_NOTE
                  })).entry.id
                : null
              const next: Payment = {
                ...current,
                status: t.to,
                providerPaymentId: current.providerPaymentId ?? n.providerPaymentId,
                updatedAt: yield* Clock.currentTimeMillis
              }
              return { next, result: { payment: next, transition: t, transactionId } }
            })
          )
          if (outcome === undefined) return yield* notFound(n.paymentId)
          // The ledger's own wake did nothing inside this transaction; wake now the event is visible.
          if (outcome.transactionId !== null) yield* outbox.wake
          return outcome
        })

      const receiveNotification: PaymentsShape["receiveNotification"] = (raw) =>
        Effect.flatMap(provider.parseNotification(raw), applyNotification)

      const refresh: PaymentsShape["refresh"] = (partnerId, id) =>
        Effect.gen(function* () {
          const payment = yield* get(partnerId, id)
          if (payment.providerPaymentId === null)
            // The acquirer never accepted it: nothing to read, nothing changes.
            return { payment, transition: paymentTransition(payment.status, payment.status), transactionId: null }
          const status = yield* provider.readStatus({
            paymentId: payment.id,
            providerPaymentId: payment.providerPaymentId
          })
          return yield* applyNotification({
            paymentId: payment.id,
            providerPaymentId: payment.providerPaymentId,
            status
          })
        })

      return {
        createLink,
        history: (partnerId) => store.listRecent(partnerId, PAYMENT_HISTORY_SIZE),
        get,
        applyNotification,
        receiveNotification,
        refresh
      }
    })
  )
}

/**
 * The storage port of top-up payments. Adapters implement it on memory (simulations) and SQL
 * (Postgres and PGlite); one contract suite holds both to the same behaviour.
 */
import { Context, type Effect } from "effect"
import type { PaymentId, PartnerId } from "../EntityIds.js"
import type { StoreError } from "../StoreError.js"
import type { Payment } from "./Payment.js"

/** What a change decided: the payment to write (undefined: leave it as it is) and the caller's result. */
export interface PaymentChange<A> {
  readonly next: Payment | undefined
  readonly result: A
}

/** The operations of the payment store port. */
export interface PaymentStoreShape {
  /**
   * Inserts the payment unless the partner already has one under its idempotency key, and answers
   * the stored payment: the new one (`created`) or the earlier one. Concurrent calls with one key
   * store exactly one payment and all answer it.
   */
  readonly insertOrGet: (
    payment: Payment
  ) => Effect.Effect<{ readonly payment: Payment; readonly created: boolean }, StoreError>
  /**
   * Records the acquirer's payment id and URL unless already recorded (the first writer wins,
   * later ones read it back); undefined when there is no such payment.
   */
  readonly attachProvider: (
    partnerId: PartnerId,
    id: PaymentId,
    provider: { readonly providerPaymentId: string; readonly paymentUrl: string },
    now: number
  ) => Effect.Effect<Payment | undefined, StoreError>
  /** The partner's payment, or undefined (also for another partner's). */
  readonly get: (partnerId: PartnerId, id: PaymentId) => Effect.Effect<Payment | undefined, StoreError>
  /**
   * The partner a payment id belongs to. Acquirer notifications name the payment only (one
   * acquirer serves every partner), so this is the one lookup not scoped by partner, like the
   * webhook worker's claims.
   */
  readonly locate: (id: PaymentId) => Effect.Effect<PartnerId | undefined, StoreError>
  /** The partner's newest payments first, at most `limit`. */
  readonly listRecent: (partnerId: PartnerId, limit: number) => Effect.Effect<ReadonlyArray<Payment>, StoreError>
  /**
   * Runs `change` on the locked payment and writes the payment it decides, in one transaction:
   * concurrent updates of one payment serialize, and effects `change` runs on the same database
   * (a ledger credit with its outbox events) commit or roll back with the status. A failing
   * `change` writes nothing. Undefined when there is no such payment.
   */
  readonly update: <A, E, R>(
    partnerId: PartnerId,
    id: PaymentId,
    change: (current: Payment) => Effect.Effect<PaymentChange<A>, E, R>
  ) => Effect.Effect<A | undefined, E | StoreError, R>
}

/** Port: where payments are kept. */
export class PaymentStore extends Context.Tag("@frank/core/PaymentStore")<PaymentStore, PaymentStoreShape>() {}

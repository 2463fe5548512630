/**
 * The sandbox acquirer's own records: what an outside acquirer would keep about the payments it
 * was asked to create. The engine never reads them; they reach the engine only as notifications.
 */
import type { Errors, Ids, Payments } from "@frank/core"
import { Context, type Effect } from "effect"

export interface SandboxPayment {
  readonly partnerId: Ids.PartnerId
  /** The engine's payment id, given to the acquirer as the order id. */
  readonly orderId: Ids.PaymentId
  /** The acquirer's own id of the payment. */
  readonly id: string
  readonly amountRub: number
  readonly description: string | null
  readonly status: Payments.PaymentStatus
  readonly createdAt: number
  readonly updatedAt: number
}

export interface SandboxAcquirerStoreShape {
  /** Stores the payment unless its order id is known; answers the stored one (creation is idempotent by order id). */
  readonly open: (payment: SandboxPayment) => Effect.Effect<SandboxPayment, Errors.StoreError>
  /** By order id: the checkout page's URL names nothing else. */
  readonly find: (orderId: Ids.PaymentId) => Effect.Effect<SandboxPayment | undefined, Errors.StoreError>
  /**
   * Runs the pure `change` on the locked payment and writes what it returns (undefined: nothing);
   * answers its result, or undefined when the order id is unknown.
   */
  readonly modify: <A>(
    orderId: Ids.PaymentId,
    change: (current: SandboxPayment) => { readonly next: SandboxPayment | undefined; readonly result: A }
  ) => Effect.Effect<A | undefined, Errors.StoreError>
}

export class SandboxAcquirerStore extends Context.Tag("@frank/adapters/SandboxAcquirerStore")<
  SandboxAcquirerStore,
  SandboxAcquirerStoreShape
>() {}

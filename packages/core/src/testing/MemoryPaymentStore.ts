/**
 * The payment store on plain memory, for simulations and fast tests. One semaphore serializes
 * writes, the memory counterpart of the SQL store's unique key and row lock. `update` holds it
 * while the change runs (a ledger credit on the memory ledger takes that store's own lock, never
 * this one, so the two cannot deadlock); a failing change writes nothing.
 */
import { Effect, Layer } from "effect"
import type { Payment } from "../payments/Payment.js"
import { PaymentStore, type PaymentStoreShape } from "../payments/PaymentStore.js"
import type { PartnerId } from "../EntityIds.js"

export const makeMemoryPaymentStore = Effect.gen(function* () {
  /** By payment id (ids are globally unique); partner checked on every read. */
  const byId = new Map<string, Payment>()
  /** `${partnerId}\u0000${idempotencyKey}` → payment id. */
  const byKey = new Map<string, string>()
  /** Oldest first per partner. */
  const order = new Map<string, string[]>()
  const lock = yield* Effect.makeSemaphore(1)

  const owned = (partnerId: PartnerId, id: string): Payment | undefined => {
    const p = byId.get(id)
    return p !== undefined && p.partnerId === partnerId ? p : undefined
  }

  const store: PaymentStoreShape = {
    insertOrGet: (payment) =>
      lock.withPermits(1)(
        Effect.sync(() => {
          const key = `${payment.partnerId}\u0000${payment.idempotencyKey}`
          const existing = byKey.get(key)
          if (existing !== undefined) return { payment: byId.get(existing)!, created: false }
          byId.set(payment.id, payment)
          byKey.set(key, payment.id)
          order.set(payment.partnerId, [...(order.get(payment.partnerId) ?? []), payment.id])
          return { payment, created: true }
        })
      ),
    attachProvider: (partnerId, id, provider, now) =>
      lock.withPermits(1)(
        Effect.sync(() => {
          const p = owned(partnerId, id)
          if (p === undefined) return undefined
          if (p.providerPaymentId !== null && p.paymentUrl !== null) return p
          const next: Payment = {
            ...p,
            providerPaymentId: p.providerPaymentId ?? provider.providerPaymentId,
            paymentUrl: p.paymentUrl ?? provider.paymentUrl,
            updatedAt: now
          }
          byId.set(id, next)
          return next
        })
      ),
    get: (partnerId, id) => Effect.sync(() => owned(partnerId, id)),
    locate: (id) => Effect.sync(() => byId.get(id)?.partnerId),
    listRecent: (partnerId, limit) =>
      Effect.sync(() =>
        (order.get(partnerId) ?? [])
          .slice(-limit)
          .reverse()
          .map((id) => byId.get(id)!)
      ),
    update: (partnerId, id, change) =>
      lock.withPermits(1)(
        Effect.suspend(() => {
          const current = owned(partnerId, id)
          if (current === undefined) return Effect.succeed(undefined)
          return Effect.map(change(current), (decided) => {
            if (decided.next !== undefined) byId.set(id, decided.next)
            return decided.result
          })
        })
      )
  }
  return store
})

/** The payment store in memory. */
export const MemoryPaymentStore = Layer.effect(PaymentStore, makeMemoryPaymentStore)

/**
 * The sandbox acquirer's records on memory (tests and simulations). One semaphore serializes
 * writes, like the SQL store's row lock.
 */
import { Effect, Layer } from "effect"
import { type SandboxPayment, SandboxAcquirerStore, type SandboxAcquirerStoreShape } from "./SandboxAcquirerStore.js"

export const make = Effect.gen(function* () {
  const byOrder = new Map<string, SandboxPayment>()
  const lock = yield* Effect.makeSemaphore(1)
  const store: SandboxAcquirerStoreShape = {
    open: (payment) =>
      lock.withPermits(1)(
        Effect.sync(() => {
          const existing = byOrder.get(payment.orderId)
          if (existing !== undefined) return existing
          byOrder.set(payment.orderId, payment)
          return payment
        })
      ),
    find: (orderId) => Effect.sync(() => byOrder.get(orderId)),
    modify: (orderId, change) =>
      lock.withPermits(1)(
        Effect.sync(() => {
          const current = byOrder.get(orderId)
          if (current === undefined) return undefined
          const decided = change(current)
          if (decided.next !== undefined) byOrder.set(orderId, decided.next)
          return decided.result
        })
      )
  }
  return store
})

/** `SandboxAcquirerStore` in memory. */
export const layer: Layer.Layer<SandboxAcquirerStore> = Layer.effect(SandboxAcquirerStore, make)

/**
 * Company profiles and legal invoices on plain memory, for simulations and fast tests. One
 * semaphore per store serializes writes: the memory counterpart of the SQL row lock and of the
 * conditional revision update. The storage contract suite holds these and the SQL stores to the
 * same behaviour.
 */
import { Effect, Layer } from "effect"
import type { CompanyProfile } from "../../invoices/CompanyProfile.js"
import { CompanyProfileStore, type CompanyProfileStoreShape } from "../../invoices/CompanyProfileStore.js"
import type { Invoice } from "../../invoices/Invoice.js"
import { InvoiceStore, type InvoiceStoreShape } from "../../invoices/InvoiceStore.js"
import type { PartnerId } from "../../EntityIds.js"

const key = (partnerId: PartnerId, id: string) => `${partnerId}\u0000${id}`

export const makeMemoryCompanyProfileStore = Effect.gen(function* () {
  const lock = yield* Effect.makeSemaphore(1)
  const profiles = new Map<string, CompanyProfile>()
  const store: CompanyProfileStoreShape = {
    get: (partnerId) => Effect.sync(() => profiles.get(partnerId)),
    save: (partnerId, requisites, expectedRevision, now) =>
      lock.withPermits(1)(
        Effect.sync(() => {
          const current = profiles.get(partnerId)
          const currentRevision = current?.revision ?? 0
          if (currentRevision !== expectedRevision) return { _tag: "Stale", currentRevision } as const
          const profile: CompanyProfile = {
            ...requisites,
            partnerId,
            revision: currentRevision + 1,
            createdAt: current?.createdAt ?? now,
            updatedAt: now
          }
          profiles.set(partnerId, profile)
          return { _tag: "Saved", profile } as const
        })
      )
  }
  return store
})

export const makeMemoryInvoiceStore = Effect.gen(function* () {
  const lock = yield* Effect.makeSemaphore(1)
  const invoices = new Map<string, Invoice>()

  /** Newest first, ties by id descending: the SQL store's order. */
  const newestFirst = (partnerId: PartnerId): Invoice[] =>
    [...invoices.values()]
      .filter((i) => i.partnerId === partnerId)
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))

  const store: InvoiceStoreShape = {
    insert: (invoice) =>
      lock.withPermits(1)(
        Effect.sync(() => {
          invoices.set(key(invoice.partnerId, invoice.id), invoice)
        })
      ),
    get: (partnerId, id) => Effect.sync(() => invoices.get(key(partnerId, id))),
    list: (partnerId, offset, limit) =>
      Effect.sync(() => {
        const all = newestFirst(partnerId)
        return { items: all.slice(offset, offset + limit), total: all.length }
      }),
    // The step runs while the lock is held and its decision is written only when it succeeds:
    // a failing step leaves the invoice as it was, like a rolled-back transaction.
    modify: (partnerId, id, step) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          const current = invoices.get(key(partnerId, id))
          if (current === undefined) return undefined
          const decided = yield* step(current)
          if (decided.write !== undefined) invoices.set(key(partnerId, id), decided.write)
          return decided.result
        })
      )
  }
  return store
})

export const MemoryCompanyProfileStore = Layer.effect(CompanyProfileStore, makeMemoryCompanyProfileStore)
export const MemoryInvoiceStore = Layer.effect(InvoiceStore, makeMemoryInvoiceStore)
/** The invoice and company profile stores in memory. */
export const MemoryInvoiceStores = Layer.mergeAll(MemoryCompanyProfileStore, MemoryInvoiceStore)

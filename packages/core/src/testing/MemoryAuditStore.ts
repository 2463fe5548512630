/**
 * The audit store in memory, for simulations and fast tests. Memory writes cannot fail half-way,
 * so `atomically` runs the change as it is: a change that fails never reaches its record.
 */
import { Effect, Layer } from "effect"
import { isAfterCursor } from "../audit/auditCursor.js"
import type { AuditRecord } from "../audit/AuditRecord.js"
import { type AuditQuery, AuditStore, type AuditStoreShape } from "../audit/AuditStore.js"
import type { PartnerId } from "../EntityIds.js"

const newestFirst = (a: AuditRecord, b: AuditRecord) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

const matches = (r: AuditRecord, partnerId: PartnerId, q: AuditQuery) =>
  r.partnerId === partnerId &&
  (q.action === undefined || r.action === q.action) &&
  (q.from === undefined || r.at >= q.from) &&
  (q.to === undefined || r.at < q.to) &&
  (q.after === undefined || isAfterCursor(r, q.after))

/** A fresh memory audit store. */
export const makeMemoryAuditStore = (): AuditStoreShape => {
  let records: Array<AuditRecord> = []
  return {
    append: (record) => Effect.sync(() => void records.push(record)),
    atomically: (effect) => effect,
    list: (partnerId, query) =>
      Effect.sync(() =>
        records
          .filter((r) => matches(r, partnerId, query))
          .sort(newestFirst)
          .slice(0, query.limit)
      ),
    deleteExpired: (before, limit) =>
      Effect.sync(() => {
        const expired = new Set(records.filter((r) => r.at < before).slice(0, limit))
        records = records.filter((r) => !expired.has(r))
        return expired.size
      })
  }
}

/** `AuditStore` in memory (a new store per layer build). */
export const MemoryAuditStore: Layer.Layer<AuditStore> = Layer.sync(AuditStore, makeMemoryAuditStore)

/**
 * Storage port of the audit log. `append` joins the caller's transaction (on SQL the insert runs
 * on the transaction's connection), and `atomically` opens one, so a change and its record commit
 * or roll back together.
 */
import { Context, type Effect } from "effect"
import type { PartnerId } from "../EntityIds.js"
import type { StoreError } from "../StoreError.js"
import type { AuditCursor } from "./auditCursor.js"
import type { AuditRecord } from "./AuditRecord.js"

/** Which records a page shows: an action, a time range [from, to), a size and where it continues. */
export interface AuditQuery {
  readonly action?: string | undefined
  /** Inclusive lower bound (epoch ms). */
  readonly from?: number | undefined
  /** Exclusive upper bound (epoch ms). */
  readonly to?: number | undefined
  readonly limit: number
  readonly after?: AuditCursor | undefined
}

/** The operations of the audit store port. */
export interface AuditStoreShape {
  /** Writes one record; inside a transaction, as part of it. */
  readonly append: (record: AuditRecord) => Effect.Effect<void, StoreError>
  /** Runs `effect` in one transaction (joining an open one); memory stores run it as it is. */
  readonly atomically: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreError, R>
  /** The partner's records matching `query`, newest first (at, then id, descending). */
  readonly list: (partnerId: PartnerId, query: AuditQuery) => Effect.Effect<ReadonlyArray<AuditRecord>, StoreError>
  /** Deletes at most `limit` records older than `before` (any partner); how many it deleted. */
  readonly deleteExpired: (before: number, limit: number) => Effect.Effect<number, StoreError>
}

/** Port: where audit records are kept (SQL in adapters, memory in tests). */
export class AuditStore extends Context.Tag("@frank/core/AuditStore")<AuditStore, AuditStoreShape>() {}

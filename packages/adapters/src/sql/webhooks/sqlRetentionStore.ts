/**
 * The SQL webhook store's `WebhookRetentionStore`. Its two deletions are functions (migration
 * 0018): index lookups only, batches bounded by the caller, rows other transactions hold skipped.
 */
import type { Webhooks } from "@frank/core"
import { Effect } from "effect"
import { storeError, type WebhookSql } from "./webhookSql.js"

export const sqlRetentionStore = ({ sql, untransformed }: WebhookSql): Webhooks.WebhookRetentionStoreShape => ({
  deleteExpiredDeliveries: (before, limit) =>
    untransformed<{ n: number }>`SELECT webhook_delete_expired_deliveries(${before}, ${limit}) AS n`.pipe(
      Effect.map((rows) => rows[0]?.n ?? 0),
      Effect.mapError(storeError("deleteExpiredDeliveries"))
    ),

  deleteExpiredEvents: (before, limit) =>
    untransformed<{ n: number }>`SELECT webhook_delete_expired_events(${before}, ${limit}) AS n`.pipe(
      Effect.map((rows) => rows[0]?.n ?? 0),
      Effect.mapError(storeError("deleteExpiredEvents"))
    ),

  oldestEventAt: () =>
    sql<{ at: number | null }>`SELECT min(occurred_at)::bigint AS at FROM webhook_events`.pipe(
      Effect.map((rows) => rows[0]?.at ?? undefined),
      Effect.mapError(storeError("oldestEventAt"))
    )
})

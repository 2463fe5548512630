import { Effect } from "effect"
import { storeError, type WebhookSql } from "./webhookSql.js"
import type { WebhookRetentionStoreShape } from "@frank/core/stores"

export const sqlRetentionStore = ({ sql, untransformed }: WebhookSql): WebhookRetentionStoreShape => ({
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

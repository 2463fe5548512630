/**
 * The SQL webhook store's `WebhookRetentionStore`. History lives in time partitions of one day
 * (migration 0032): a sweep first creates the days ahead (`prepare`), then detaches and drops the
 * past days whose deliveries are all finished, and deletes row by row (the functions of migration
 * 0018, bounded by the caller, rows other transactions hold skipped) only in past days a pending
 * or delivering delivery still holds, and in the default partition.
 */
import { Effect } from "effect"
import { storeError, type WebhookSql } from "./webhookSql.js"
import type { WebhookRetentionStoreShape } from "@frank/core/stores"

/** One partition per UTC day: retention keeps a row at most a day past its period. */
export const PARTITION_WIDTH_MS = 24 * 60 * 60 * 1000

/** Days created ahead of the current one: a host that stops sweeping has this long before rows fall into the default partition. */
export const PARTITIONS_AHEAD = 3

export const sqlRetentionStore = ({ sql, untransformed }: WebhookSql): WebhookRetentionStoreShape => ({
  prepare: (now) =>
    untransformed`SELECT webhook_prepare_partitions(${now}, ${PARTITION_WIDTH_MS}, ${PARTITIONS_AHEAD})`.pipe(
      Effect.asVoid,
      Effect.mapError(storeError("prepare"))
    ),

  deleteExpiredDeliveries: (before, limit) =>
    untransformed<{ dropped: number; n: number }>`SELECT webhook_drop_expired_partitions(${before}) AS dropped,
      webhook_delete_expired_deliveries(${before}, ${limit}) AS n`.pipe(
      Effect.map((rows) => (rows[0]?.dropped ?? 0) + (rows[0]?.n ?? 0)),
      Effect.mapError(storeError("deleteExpiredDeliveries"))
    ),

  deleteExpiredEvents: (before, limit) =>
    untransformed<{ dropped: number; n: number }>`SELECT webhook_drop_expired_event_partitions() AS dropped,
      webhook_delete_expired_events(${before}, ${limit}) AS n`.pipe(
      Effect.map((rows) => (rows[0]?.dropped ?? 0) + (rows[0]?.n ?? 0)),
      Effect.mapError(storeError("deleteExpiredEvents"))
    ),

  // The oldest event goes with its day's partition, so it counts as written at that day's end.
  oldestEventAt: () =>
    sql<{ at: number | null }>`SELECT greatest(o.occurred_at, p.upper - 1)::bigint AS at
      FROM (SELECT occurred_at, created_at FROM webhook_events ORDER BY occurred_at LIMIT 1) o
      LEFT JOIN webhook_history_partitions p ON o.created_at < p.upper AND (p.lower IS NULL OR o.created_at >= p.lower)`.pipe(
      Effect.map((rows) => rows[0]?.at ?? undefined),
      Effect.mapError(storeError("oldestEventAt"))
    )
})

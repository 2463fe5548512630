/**
 * The SQL of endpoint health (migration 0019's `webhook_endpoint_health`, one row per endpoint,
 * none until its health first changes) for the SQL webhook store: reading it beside the endpoint,
 * writing it when a patch or the health rule changed it, and the disable rule's candidates. The
 * outcome write keeps it in SQL itself (`webhook_finish_attempts`).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { Webhooks } from "@frank/core"

export const endpointHealthSql = (sql: SqlClient.SqlClient) => ({
  /**
   * Joined to `webhook_endpoints` (unaliased): a lateral subquery that names only health columns,
   * so the endpoint's own column names stay unambiguous. A missing row reads as a new endpoint's.
   */
  join: sql.literal(`LEFT JOIN LATERAL (SELECT h.last_success_at, h.failing_since, h.disabled_at, h.disabled_reason,
    h.strikes, h.strikes_since FROM webhook_endpoint_health h
    WHERE h.partner_id = webhook_endpoints.partner_id AND h.endpoint_id = webhook_endpoints.id) health ON true`),
  columns: sql.literal(
    "health.last_success_at, health.failing_since, health.disabled_at, health.disabled_reason, coalesce(health.strikes, 0) AS strikes, health.strikes_since"
  ),

  /** Writes `e.health` in full when it differs from `before`. */
  write: (e: Webhooks.WebhookEndpoint, before: Webhooks.EndpointHealth) => {
    const h = e.health
    if (Webhooks.sameHealth(h, before)) return Effect.void
    return Effect.asVoid(sql`INSERT INTO webhook_endpoint_health
      (partner_id, endpoint_id, last_success_at, failing_since, disabled_at, disabled_reason, strikes, strikes_since)
      VALUES (${e.partnerId}, ${e.id}::uuid, ${h.lastSuccessAt}, ${h.failingSince}, ${h.disabledAt}, ${h.disabledReason},
        ${h.strikes}, ${h.strikesSince})
      ON CONFLICT (partner_id, endpoint_id) DO UPDATE SET last_success_at = excluded.last_success_at,
        failing_since = excluded.failing_since, disabled_at = excluded.disabled_at,
        disabled_reason = excluded.disabled_reason, strikes = excluded.strikes, strikes_since = excluded.strikes_since`)
  },

  /** The disable rule's candidates, read from the partial index of endpoints with strikes. */
  failing: (strikesSinceBy: number, minFailures: number, limit: number) =>
    sql<Webhooks.EndpointKey>`SELECT h.partner_id, h.endpoint_id AS id FROM webhook_endpoint_health h
    JOIN webhook_endpoints e ON e.partner_id = h.partner_id AND e.id = h.endpoint_id
    WHERE h.strikes_since IS NOT NULL AND h.strikes_since <= ${strikesSinceBy} AND h.strikes >= ${minFailures}
      AND e.active AND e.deleted_at IS NULL
    ORDER BY h.strikes_since LIMIT ${limit}`,

  earliestStrikes: (minFailures: number) =>
    sql<{ at: number | null }>`SELECT min(h.strikes_since)::bigint AS at FROM webhook_endpoint_health h
    JOIN webhook_endpoints e ON e.partner_id = h.partner_id AND e.id = h.endpoint_id
    WHERE h.strikes_since IS NOT NULL AND h.strikes >= ${minFailures} AND e.active AND e.deleted_at IS NULL`.pipe(
      Effect.map((rows) => rows[0]?.at ?? undefined)
    )
})

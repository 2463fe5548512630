/**
 * Reading and replacing one endpoint under its lock: shared by a patch or rotation (the
 * `EndpointStore`) and the health rule's pause (the `DeliveryQueue`).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { Ids, Webhooks } from "@frank/core"
import { Effect } from "effect"
import { endpointHealthSql } from "./endpointHealthSql.js"
import { ENDPOINT_COLUMNS, type EndpointRow, endpointFromRow } from "./endpointRows.js"

export const endpointWrites = (sql: SqlClient.SqlClient) => {
  const endpointColumns = sql.literal(ENDPOINT_COLUMNS)
  const health = endpointHealthSql(sql)

  /**
   * `FOR NO KEY UPDATE` when changing it: a patch or a rotation must not wait for the business
   * transactions holding `FOR KEY SHARE` on the endpoint (see pendingGuard.ts); only a deletion does.
   */
  const selectEndpoint = (partnerId: Ids.PartnerId, id: string, forUpdate: boolean) =>
    Effect.map(
      sql<EndpointRow>`SELECT ${endpointColumns}, ${health.columns} FROM webhook_endpoints ${health.join}
      WHERE partner_id = ${partnerId} AND id = ${id}::uuid AND deleted_at IS NULL${forUpdate ? sql` FOR NO KEY UPDATE OF webhook_endpoints` : sql``}`,
      (rows) => (rows[0] === undefined ? undefined : endpointFromRow(rows[0]))
    )

  const writeEndpoint = (e: Webhooks.WebhookEndpoint) =>
    sql`UPDATE webhook_endpoints SET url = ${e.url}, event_types = ${e.eventTypes === null ? null : [...e.eventTypes]}, active = ${e.active},
    secret = ${e.secret}, previous_secret = ${e.previousSecret}, previous_secret_valid_until = ${e.previousSecretValidUntil},
    signature_scheme = ${e.signatureScheme},
    updated_at = ${e.updatedAt} WHERE partner_id = ${e.partnerId} AND id = ${e.id}::uuid`

  /**
   * The endpoint's rate row (migration 0029): written when limited, removed when unlimited. A
   * changed limit keeps the window's grants, so lowering it cannot start a fresh burst.
   */
  const writeRate = (e: Webhooks.WebhookEndpoint) =>
    e.rateLimitPerSecond === null
      ? sql`DELETE FROM webhook_endpoint_rates WHERE partner_id = ${e.partnerId} AND endpoint_id = ${e.id}::uuid`
      : sql`INSERT INTO webhook_endpoint_rates (partner_id, endpoint_id, per_second)
        VALUES (${e.partnerId}, ${e.id}::uuid, ${e.rateLimitPerSecond})
        ON CONFLICT (partner_id, endpoint_id) DO UPDATE SET per_second = excluded.per_second`

  /**
   * Replaces the locked live endpoint with what `change` decides (nothing when it decides
   * nothing) and runs `alongside` on the result, all in one transaction.
   */
  const changeEndpoint = <E>(
    partnerId: Ids.PartnerId,
    id: string,
    change: (current: Webhooks.WebhookEndpoint) => Webhooks.WebhookEndpoint | undefined,
    alongside: (next: Webhooks.WebhookEndpoint) => Effect.Effect<void, E>
  ) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const current = yield* selectEndpoint(partnerId, id, true)
        if (current === undefined) return undefined
        const next = change(current)
        if (next === undefined) return undefined
        yield* writeEndpoint(next)
        yield* health.write(next, current.health)
        // A paused endpoint's pending deliveries leave the due index, and come back on
        // reactivation (migration 0011): claims no longer step over its backlog.
        if (next.active !== current.active)
          yield* sql`UPDATE webhook_deliveries SET endpoint_paused = ${!next.active}
              WHERE partner_id = ${partnerId} AND endpoint_id = ${id}::uuid AND status = 'pending' AND endpoint_paused = ${next.active}`
        // After the deliveries above: a claim holding some of them waits for this row at most,
        // never the other way round (migration 0029).
        if (next.rateLimitPerSecond !== current.rateLimitPerSecond) yield* writeRate(next)
        yield* alongside(next)
        return next
      })
    )

  return { endpointColumns, health, selectEndpoint, changeEndpoint, writeRate }
}

export type EndpointWrites = ReturnType<typeof endpointWrites>

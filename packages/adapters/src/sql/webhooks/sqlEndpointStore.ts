/**
 * The SQL webhook store's `EndpointStore`: endpoints as the `Webhooks` service keeps them.
 * Endpoint health lives in a table of its own beside the endpoints (migration 0019,
 * endpointHealthSql.ts): reads join it, a patch writes it in the endpoint's transaction.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option } from "effect"
import { endpointFromRow, type EndpointRow } from "./endpointRows.js"
import type { EndpointWrites } from "./endpointWrites.js"
import type { PendingGuardSql } from "./pendingGuard.js"
import { storeError, type WebhookSql } from "./webhookSql.js"
import type { EndpointStoreShape } from "@frank/core/stores"

export const sqlEndpointStore = (
  { sql }: WebhookSql,
  endpoints: EndpointWrites,
  { markDeleted, dropPending, forgetRate, purgeIfHeld }: PendingGuardSql
): EndpointStoreShape => {
  const { endpointColumns, health, selectEndpoint, changeEndpoint, writeRate } = endpoints
  return {
    insertEndpoint: (endpoint, maxPerPartner) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            // Serializes registrations of one partner, so the count below stays exact under concurrency.
            yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`webhook_endpoints:${endpoint.partnerId}`}))`
            const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_endpoints
            WHERE partner_id = ${endpoint.partnerId} AND deleted_at IS NULL`
            if ((row?.n ?? 0) >= maxPerPartner) return false
            yield* sql`INSERT INTO webhook_endpoints ${sql.insert({
              partnerId: endpoint.partnerId,
              id: endpoint.id,
              url: endpoint.url,
              eventTypes: endpoint.eventTypes === null ? null : [...endpoint.eventTypes],
              active: endpoint.active,
              secret: endpoint.secret,
              previousSecret: endpoint.previousSecret,
              previousSecretValidUntil: endpoint.previousSecretValidUntil,
              signatureScheme: endpoint.signatureScheme,
              createdAt: endpoint.createdAt,
              updatedAt: endpoint.updatedAt
            })}`
            if (endpoint.rateLimitPerSecond !== null) yield* writeRate(endpoint)
            return true
          })
        )
        .pipe(Effect.mapError(storeError("insertEndpoint"))),

    listEndpoints: (partnerId) =>
      sql<EndpointRow>`SELECT ${endpointColumns}, ${health.columns} FROM webhook_endpoints ${health.join}
      WHERE partner_id = ${partnerId} AND deleted_at IS NULL ORDER BY created_at, id`.pipe(
        Effect.map((rows) => rows.map(endpointFromRow)),
        Effect.mapError(storeError("listEndpoints"))
      ),

    getEndpoint: (partnerId, id) =>
      selectEndpoint(partnerId, id, false).pipe(Effect.mapError(storeError("getEndpoint"))),

    modifyEndpoint: (partnerId, id, change) =>
      changeEndpoint(partnerId, id, change, () => Effect.void).pipe(Effect.mapError(storeError("modifyEndpoint"))),

    deleteEndpoint: (partnerId, id, now) =>
      Effect.gen(function* () {
        if (Option.isSome(yield* Effect.serviceOption(SqlClient.TransactionConnection))) {
          // Inside a caller's transaction nothing commits before the rest, and the lock must
          // come first: a writer's KEY SHARE passes an uncommitted non-key update without
          // re-reading the row, so marking the endpoint deleted first would not keep the
          // writers out. The lock alone waits for them (pendingGuard), and the statements
          // after it see their rows.
          const [held] = yield* sql`SELECT id FROM webhook_endpoints
              WHERE partner_id = ${partnerId} AND id = ${id}::uuid AND deleted_at IS NULL FOR UPDATE`
          if (held === undefined) return false
          // Made under the FOR UPDATE, so a fan-out that read the endpoint earlier re-reads it (purgeIfHeld).
          yield* markDeleted(partnerId, id, now, false)
          yield* dropPending(sql`d.partner_id = ${partnerId} AND d.endpoint_id = ${id}::uuid`)
          yield* forgetRate(partnerId, id)
          return true
        }
        // Two steps. First the deletion, committed on its own (a NO KEY UPDATE: it waits for
        // no KEY SHARE writer, only for a patch or rotation in progress): the endpoint is gone
        // for the partner, fan-outs leave it out and take no lock on it, the claim skips its
        // deliveries. Then the purge, whose FOR UPDATE waits for the writers holding the
        // endpoint then — fan-outs that saw it live, and retries and replays of its
        // deliveries (pendingGuard), which see it deleted once they have their lock — but not
        // for fan-outs begun after the first step, so a partner whose business transactions
        // overlap without pause cannot starve it (KEY SHARE lockers do not queue behind a
        // waiting FOR UPDATE). Stopped in between, the host leaves the endpoint
        // marked `purge_pending` (migration 0010), and the worker's sweep purges it.
        const [marked] = yield* markDeleted(partnerId, id, now, true)
        if (marked === undefined) return false
        // The deletion has committed: a failing purge is the sweep's to finish, not an error
        // for the partner (whose retried DELETE would only find the endpoint gone).
        yield* purgeIfHeld(partnerId, id, false).pipe(
          Effect.catchAll((e) =>
            Effect.logWarning(
              `webhook endpoint ${id}: deleted; its pending deliveries are left to the worker's sweep`,
              e
            )
          )
        )
        return true
      }).pipe(Effect.mapError(storeError("deleteEndpoint")))
  }
}

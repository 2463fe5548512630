/**
 * The SQL webhook store's `DeliveryQueue`: what the worker asks of storage. The claim, the sent
 * mark and the lease are claimSql.ts's; the outcome write is a PL/pgSQL function (`webhook_finish_attempts`, migration
 * 0031's live text, a function since 0008) that also keeps endpoint health; `nextWakeAt` and
 * `dueBacklog` read the claim's own definition of "claimable" (migrations 0015, 0017 and 0020).
 */
import type { Ids } from "@frank/core"
import { Effect } from "effect"
import { sqlFailures } from "../sqlFailures.js"
import { claimSql } from "./claimSql.js"
import type { EndpointWrites } from "./endpointWrites.js"
import type { PendingGuardSql } from "./pendingGuard.js"
import { storeError, type WebhookSql } from "./webhookSql.js"
import type { DeliveryQueueShape } from "@frank/core/stores"

/** Unfinished deletions one sweep purges at most (each is a short transaction of its own); the rest wait for the next sweep. */
const PURGES_PER_SWEEP = 100

export const sqlDeliveryQueue = (
  ctx: WebhookSql,
  { health, changeEndpoint }: EndpointWrites,
  { pendingGuard, dropPending, purgeIfHeld }: PendingGuardSql
): DeliveryQueueShape => {
  const { sql, untransformed } = ctx
  return {
    ...claimSql(ctx),

    finishAttempts: (finished, now) =>
      finished.length === 0
        ? Effect.succeed([])
        : Effect.gen(function* () {
            // One statement for the batch, fenced by the claim token (a function since migration
            // 0008, which says why; its live body is 0031's): the outcomes travel as one JSON parameter.
            const input = JSON.stringify(
              finished.map((f) => ({
                partner_id: f.claim.partnerId,
                id: f.claim.id,
                claim_token: f.claim.claimToken,
                created_at: f.claim.createdAt,
                status: f.next.status,
                attempts: f.next.attempts,
                next_attempt_at: f.next.nextAttemptAt,
                attempt: f.attempt.attempt,
                started_at: f.attempt.startedAt,
                duration_ms: f.attempt.durationMs,
                response_status: f.attempt.responseStatus,
                error: f.attempt.error,
                response_snippet: f.attempt.responseSnippet ?? null
              }))
            )
            const record = untransformed<{ id: string; status: string; endpoint_deleted: boolean }>`
            SELECT * FROM webhook_finish_attempts(${input}::json, ${now})`
            const retries = finished.filter((f) => f.next.status === "pending")
            // Deliveries, delivered or given up: one statement, nothing to guard.
            if (retries.length === 0) return (yield* record).map((r) => r.id)
            return yield* sql.withTransaction(
              Effect.gen(function* () {
                yield* pendingGuard(retries.map((f) => f.claim))
                const rows = yield* record
                // A retry of an endpoint deleted meanwhile goes with the endpoint's other pending deliveries.
                const orphaned = new Set(
                  rows.filter((r) => r.status === "pending" && r.endpoint_deleted).map((r) => r.id)
                )
                if (orphaned.size > 0) {
                  const claims = retries.map((f) => f.claim).filter((c) => orphaned.has(c.id))
                  yield* dropPending(
                    sql`(d.partner_id, d.id) IN (SELECT * FROM unnest(${claims.map((c) => c.partnerId)}::text[], ${claims.map((c) => c.id)}::uuid[]))`
                  )
                }
                return rows.map((r) => r.id)
              })
            )
          }).pipe(Effect.mapError(storeError("finishAttempts"))),

    dropExpiredSecrets: (now) =>
      // The partial index of migration 0009 holds only endpoints with a previous secret (inside
      // their window, or just past it until this runs), so the sweep's usual answer, none, reads nothing.
      sql<{ n: number }>`
      WITH wiped AS (
        UPDATE webhook_endpoints SET previous_secret = NULL, previous_secret_valid_until = NULL
        WHERE previous_secret IS NOT NULL AND previous_secret_valid_until <= ${now}
        RETURNING 1
      )
      SELECT count(*)::int AS n FROM wiped`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0),
        Effect.mapError(storeError("dropExpiredSecrets"))
      ),

    purgeDeletedEndpoints: (now) =>
      Effect.gen(function* () {
        // Nearly always none: only a deletion in progress or a host that stopped mid-deletion
        // leaves one (migration 0010's partial index holds just those). One a writer still holds
        // is skipped, not waited for: the sweep runs in the worker's loop, which must not queue
        // behind a partner's transaction. SKIP LOCKED already in the listing, so that held ones
        // cannot fill the batch and keep the rest waiting.
        const waiting = yield* sql<{
          partnerId: Ids.PartnerId
          id: string
        }>`SELECT partner_id, id FROM webhook_endpoints
        WHERE purge_pending AND deleted_at <= ${now} ORDER BY deleted_at LIMIT ${PURGES_PER_SWEEP} FOR UPDATE SKIP LOCKED`
        let purged = 0
        for (const endpoint of waiting) if (yield* purgeIfHeld(endpoint.partnerId, endpoint.id, true)) purged++
        return purged
      }).pipe(Effect.mapError(storeError("purgeDeletedEndpoints"))),

    // A function (migration 0034): sent as text, its three probes were planned over every day slot at each call.
    nextWakeAt: () =>
      sql<{ at: number | null }>`SELECT webhook_next_wake_at() AS at`.pipe(
        Effect.map((rows) => rows[0]?.at ?? undefined),
        Effect.mapError(storeError("nextWakeAt"))
      ),

    // What the claim would take, by the two halves of its view (migrations 0015 and 0017): from the due
    // index, so a scrape reads only what waits, counted per endpoint and each endpoint checked
    // once; through the view, which checks the endpoint per delivery, a large backlog costs
    // several times more (docs/decisions.md).
    dueBacklog: (now) =>
      sql<{ n: number; oldest: number | null }>`
      SELECT coalesce(sum(g.n), 0)::int AS n, min(g.oldest)::bigint AS oldest
      FROM (
        SELECT d.partner_id, d.endpoint_id, count(*) AS n, min(d.next_attempt_at) AS oldest FROM webhook_deliveries d
        WHERE webhook_delivery_waiting(d) AND d.next_attempt_at <= ${now}
        GROUP BY d.partner_id, d.endpoint_id
      ) g
      JOIN webhook_endpoints e ON e.partner_id = g.partner_id AND e.id = g.endpoint_id
      WHERE webhook_endpoint_open(e)`.pipe(
        Effect.map((rows) => ({ count: rows[0]?.n ?? 0, oldestDueAt: rows[0]?.oldest ?? undefined })),
        Effect.mapError(storeError("dueBacklog"))
      ),

    disableEndpoint: (partnerId, id, disable, alongside) =>
      changeEndpoint(partnerId, id, disable, alongside).pipe(
        Effect.mapError(sqlFailures(storeError("disableEndpoint")))
      ),

    failingEndpoints: (strikesSinceBy, minFailures, limit) =>
      health.failing(strikesSinceBy, minFailures, limit).pipe(Effect.mapError(storeError("failingEndpoints"))),

    earliestStrikes: (minFailures) =>
      health.earliestStrikes(minFailures).pipe(Effect.mapError(storeError("earliestStrikes")))
  }
}

/**
 * The SQL webhook store's `DeliveryLog`: the partner's deliveries, listed and read with their
 * attempts' codes, replayed one by one, recovered by window. A replay or recovery that makes a
 * delivery pending takes the endpoint's lock first (pendingGuard.ts) and announces it (webhookSql.ts).
 */
import type { Webhooks } from "@frank/core"
import { Effect, Either } from "effect"
import { DELIVERY_COLUMNS, deliveryFromRow, type DeliveryRow } from "./deliveryRows.js"
import type { PendingGuardSql } from "./pendingGuard.js"
import { storeError, type WebhookSql } from "./webhookSql.js"
import type { DeliveryLogShape } from "@frank/core/stores"
import type { AttemptRecord } from "@frank/core/stores"

export const sqlDeliveryLog = (
  { sql, notifyInTransaction, notify }: WebhookSql,
  { pendingGuard }: PendingGuardSql
): DeliveryLogShape => {
  const deliveryColumns = sql.literal(DELIVERY_COLUMNS)
  return {
    listDeliveries: (partnerId, filter, limit, after) =>
      Effect.gen(function* () {
        const conditions = [sql`d.partner_id = ${partnerId}`]
        if (filter.endpointId !== undefined) conditions.push(sql`d.endpoint_id = ${filter.endpointId}::uuid`)
        if (filter.status !== undefined) conditions.push(sql`d.status = ${filter.status}`)
        if (filter.eventType !== undefined) conditions.push(sql`d.event_type = ${filter.eventType}`)
        if (filter.createdFrom !== undefined) conditions.push(sql`d.created_at >= ${filter.createdFrom}`)
        if (filter.createdBefore !== undefined) conditions.push(sql`d.created_at < ${filter.createdBefore}`)
        if (after !== undefined) conditions.push(sql`(d.created_at, d.id) < (${after.createdAt}, ${after.id}::uuid)`)
        const rows =
          yield* sql<DeliveryRow>`SELECT ${deliveryColumns} FROM webhook_deliveries d WHERE ${sql.and(conditions)}
        ORDER BY d.created_at DESC, d.id DESC LIMIT ${limit + 1}`
        const page = rows.slice(0, limit).map(deliveryFromRow)
        const last = page[page.length - 1]
        return {
          deliveries: page,
          next: rows.length > limit && last !== undefined ? { createdAt: last.createdAt, id: last.id } : null
        }
      }).pipe(Effect.mapError(storeError("listDeliveries"))),

    getDelivery: (partnerId, id) =>
      Effect.gen(function* () {
        const [row] = yield* sql<DeliveryRow & { payload: string }>`SELECT ${deliveryColumns}, ev.payload
          FROM webhook_deliveries d JOIN webhook_events ev ON ev.partner_id = d.partner_id AND ev.id = d.event_id
          WHERE d.partner_id = ${partnerId} AND d.id = ${id}::uuid`
        if (row === undefined) return undefined
        const attemptLog = yield* sql<AttemptRecord>`SELECT attempt, started_at, duration_ms, response_status,
          error, response_snippet FROM webhook_attempts WHERE partner_id = ${partnerId} AND delivery_id = ${id}::uuid ORDER BY n`
        const { payload, ...delivery } = row
        return { ...deliveryFromRow(delivery), payload, attemptLog }
      }).pipe(Effect.mapError(storeError("getDelivery"))),

    attemptStats: (partnerId, endpointId, since, width, buckets) =>
      Effect.gen(function* () {
        const until = since + width * buckets
        // A delivery attempted since \`since\` was written (updated_at) at or after that attempt: the
        // endpoint's older deliveries are skipped without reading their attempts.
        const rows = yield* sql<{ bucket: number; attempts: number; succeeded: number; totalDurationMs: number }>`
          SELECT ((a.started_at - ${since}) / ${width})::int AS bucket, count(*)::int AS attempts,
            count(*) FILTER (WHERE a.response_status BETWEEN 200 AND 299)::int AS succeeded,
            coalesce(sum(a.duration_ms), 0)::float8 AS total_duration_ms
          FROM webhook_deliveries d JOIN webhook_attempts a ON a.partner_id = d.partner_id AND a.delivery_id = d.id
          WHERE d.partner_id = ${partnerId} AND d.endpoint_id = ${endpointId}::uuid AND d.updated_at >= ${since}
            AND a.started_at >= ${since} AND a.started_at < ${until}
          GROUP BY 1`
        const byBucket = new Map(rows.map((r) => [r.bucket, r]))
        return Array.from({ length: buckets }, (_, i) => {
          const r = byBucket.get(i)
          return {
            start: since + i * width,
            attempts: r?.attempts ?? 0,
            succeeded: r?.succeeded ?? 0,
            totalDurationMs: Number(r?.totalDurationMs ?? 0)
          }
        })
      }).pipe(Effect.mapError(storeError("attemptStats"))),

    updateDelivery: (partnerId, id, rule, now) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            // The endpoint before the delivery, the order a deletion takes them in; a delivery
            // never changes endpoint, so reading which one unlocked is safe.
            const [target] = yield* sql<{
              endpointId: string
            }>`SELECT endpoint_id FROM webhook_deliveries WHERE partner_id = ${partnerId} AND id = ${id}::uuid`
            if (target === undefined) return undefined
            yield* pendingGuard([{ partnerId, endpointId: target.endpointId }])
            const [locked] = yield* sql<{
              id: string
            }>`SELECT id FROM webhook_deliveries WHERE partner_id = ${partnerId} AND id = ${id}::uuid FOR UPDATE`
            if (locked === undefined) return undefined
            const [row] = yield* sql<DeliveryRow & { endpointState: "active" | "inactive" | "deleted" }>`
                SELECT ${deliveryColumns},
                  CASE WHEN e.id IS NULL OR e.deleted_at IS NOT NULL THEN 'deleted' WHEN e.active THEN 'active' ELSE 'inactive' END AS endpoint_state
                FROM webhook_deliveries d LEFT JOIN webhook_endpoints e ON e.partner_id = d.partner_id AND e.id = d.endpoint_id
                WHERE d.partner_id = ${partnerId} AND d.id = ${id}::uuid`
            if (row === undefined) return undefined
            const delivery = deliveryFromRow(row)
            const decided = rule({ delivery, endpoint: row.endpointState })
            if (Either.isLeft(decided)) return Either.left(decided.left)
            const s = decided.right
            yield* sql`UPDATE webhook_deliveries SET status = ${s.status}, attempts = ${s.attempts}, next_attempt_at = ${s.nextAttemptAt},
                lease_until = ${s.leaseUntil}, claim_token = NULL, updated_at = ${now}
                WHERE partner_id = ${partnerId} AND id = ${id}::uuid`
            if (s.status === "pending" && notifyInTransaction) yield* notify
            return Either.right<Webhooks.DeliveryRecord>({ ...delivery, ...s, updatedAt: now })
          })
        )
        .pipe(Effect.mapError(storeError("updateDelivery"))),

    recoverDeliveries: (partnerId, endpointId, window, limit, rules, now) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            // The endpoint first, as a replay and a deletion take it (pendingGuard): the
            // requeued deliveries cannot outlive a concurrent deletion as pending ones.
            const [endpointRow] = yield* sql<{ active: boolean; deleted: boolean }>`
              SELECT active, deleted_at IS NOT NULL AS deleted FROM webhook_endpoints
              WHERE partner_id = ${partnerId} AND id = ${endpointId}::uuid FOR KEY SHARE`
            if (endpointRow === undefined) return undefined
            const endpoint: Webhooks.EndpointCondition = endpointRow.deleted
              ? "deleted"
              : endpointRow.active
                ? "active"
                : "inactive"
            const open = rules.endpoint(endpoint)
            if (Either.isLeft(open)) return Either.left(open.left)
            // The window's failed deliveries, through the partial index of migration 0018.
            const inWindow = sql`d.partner_id = ${partnerId} AND d.endpoint_id = ${endpointId}::uuid
              AND d.status IN ('dead_lettered', 'uncertain') AND d.created_at >= ${window.since} AND d.created_at < ${window.until}`
            // The state alone: the rule reads nothing else, and 10,000 rows' attempt histories cost.
            const rows = yield* sql<Webhooks.DeliveryState & { id: string }>`SELECT d.id, d.status, d.attempts,
              d.next_attempt_at, d.lease_until FROM webhook_deliveries d WHERE ${inWindow}
              ORDER BY d.created_at, d.id LIMIT ${limit} FOR UPDATE`
            const decided = rows.flatMap(({ id, ...delivery }) => {
              const state = rules.delivery({ delivery, endpoint })
              return Either.isRight(state) ? [{ id, ...state.right }] : []
            })
            if (decided.length > 0) {
              yield* sql`UPDATE webhook_deliveries d SET status = u.status, attempts = u.attempts,
                next_attempt_at = u.next_attempt_at, lease_until = u.lease_until, claim_token = NULL,
                endpoint_paused = ${endpoint === "inactive"}, updated_at = ${now}
                FROM unnest(${decided.map((s) => s.id)}::uuid[], ${decided.map((s) => s.status)}::text[],
                  ${decided.map((s) => s.attempts)}::int[], ${decided.map((s) => s.nextAttemptAt)}::bigint[],
                  ${decided.map((s) => s.leaseUntil)}::bigint[]) AS u(id, status, attempts, next_attempt_at, lease_until)
                WHERE d.partner_id = ${partnerId} AND d.id = u.id`
              if (notifyInTransaction && decided.some((s) => s.status === "pending")) yield* notify
            }
            const [left] = yield* sql<{
              n: number
            }>`SELECT count(*)::int AS n FROM webhook_deliveries d WHERE ${inWindow}`
            return Either.right({ requeued: decided.length, remaining: left?.n ?? 0 })
          })
        )
        .pipe(Effect.mapError(storeError("recoverDeliveries")))
  }
}

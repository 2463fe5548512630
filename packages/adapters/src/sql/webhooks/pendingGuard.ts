/**
 * How a delivery made pending and an endpoint's deletion stay out of each other's way, and the
 * deletion's statements that depend on it.
 *
 * Every write that makes a delivery `pending` (an event's fan-out, a retry, a replay) first takes
 * `FOR KEY SHARE` on the delivery's endpoint and holds it to its commit; a deletion takes
 * `FOR UPDATE` on it before removing the pending deliveries, in a later statement. The two
 * conflict, so whichever commits second sees the other: the deletion waits and then removes the
 * new pending row, or the writer waits and then sees the endpoint deleted (the fan-out leaves it
 * out; a retry drops its row; a replay answers DELIVERY_ENDPOINT_DELETED). Without this a
 * delivery made pending around a concurrent delete stays `pending` for a deleted endpoint
 * forever. `KEY SHARE` because writers do not conflict with each other, nor with a patch or
 * rotation (`FOR NO KEY UPDATE`).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import type { Ids } from "@frank/core"
import { Effect } from "effect"

export const pendingGuardSql = (sql: SqlClient.SqlClient) => {
  /** Takes `FOR KEY SHARE` on the endpoints of deliveries about to be made pending. */
  const pendingGuard = (targets: ReadonlyArray<{ readonly partnerId: Ids.PartnerId; readonly endpointId: string }>) =>
    sql`SELECT 1 FROM webhook_endpoints
    WHERE (partner_id, id) IN (SELECT * FROM unnest(${targets.map((t) => t.partnerId)}::text[], ${targets.map((t) => t.endpointId)}::uuid[]))
    FOR KEY SHARE`

  /** Deletes the pending deliveries `which` (a condition on `d`) selects, with their attempt rows. */
  const dropPending = (which: Statement.Fragment) => sql`
  WITH dropped AS (
    DELETE FROM webhook_deliveries d WHERE ${which} AND d.status = 'pending' RETURNING d.partner_id, d.id, d.created_at
  )
  DELETE FROM webhook_attempts a USING dropped WHERE a.partner_id = dropped.partner_id AND a.delivery_id = dropped.id
    AND a.delivery_created_at IN (dropped.created_at, 0)`

  /**
   * A deleted endpoint's rate row (migration 0029). Removed after its pending deliveries, as a
   * limit change is (endpointWrites.ts): a claim holding some of them waits for this row at
   * most, never the other way round. Left behind it would keep every claim off the statement
   * it runs while no endpoint is limited.
   */
  const forgetRate = (partnerId: Ids.PartnerId, id: string) =>
    sql`DELETE FROM webhook_endpoint_rates WHERE partner_id = ${partnerId} AND endpoint_id = ${id}::uuid`

  /** An endpoint deleted as the partner sees it: gone from the API, its secrets wiped; `purgeLater` marks its pending deliveries as still to remove. */
  const markDeleted = (partnerId: Ids.PartnerId, id: string, now: number, purgeLater: boolean) =>
    sql`WITH marked AS (
      UPDATE webhook_endpoints SET deleted_at = ${now}, updated_at = ${now}, active = false,
      secret = '', previous_secret = NULL, previous_secret_valid_until = NULL, purge_pending = ${purgeLater}
      WHERE partner_id = ${partnerId} AND id = ${id}::uuid AND deleted_at IS NULL RETURNING id
    ), forgotten AS (
      -- Its health goes with it: nothing reads it any more, and the disable rule's index stays small.
      DELETE FROM webhook_endpoint_health h USING marked WHERE h.partner_id = ${partnerId} AND h.endpoint_id = marked.id
    )
    SELECT id FROM marked`

  /**
   * A deletion's second step, in a transaction of its own: locks the marked endpoint, which
   * waits for (or, with `skipLocked`, gives up on) the writers holding it (pendingGuard); then,
   * in later statements that see their rows, removes its pending deliveries and clears the mark.
   * True when it purged.
   */
  const purgeIfHeld = (partnerId: Ids.PartnerId, id: string, skipLocked: boolean) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [held] = yield* sql`SELECT id FROM webhook_endpoints
        WHERE partner_id = ${partnerId} AND id = ${id}::uuid AND purge_pending FOR UPDATE${skipLocked ? sql` SKIP LOCKED` : sql``}`
        if (held === undefined) return false
        yield* dropPending(sql`d.partner_id = ${partnerId} AND d.endpoint_id = ${id}::uuid`)
        yield* forgetRate(partnerId, id)
        // Not only bookkeeping: an update made under FOR UPDATE counts as a key update for later
        // KEY SHARE lockers. A fan-out whose statement read the endpoint before the deletion and
        // locks it only now must re-read it and find it deleted; after non-key updates alone it
        // would lock the version it read and add a delivery nothing would ever remove
        // (test/webhook-sql.test.ts, "fans out to nothing").
        yield* sql`UPDATE webhook_endpoints SET purge_pending = false WHERE partner_id = ${partnerId} AND id = ${id}::uuid`
        return true
      })
    )

  return { pendingGuard, dropPending, forgetRate, markDeleted, purgeIfHeld }
}

export type PendingGuardSql = ReturnType<typeof pendingGuardSql>

/**
 * The delivery worker's two statements find deliveries, endpoints and events by key, whatever the
 * size and shape of the tables.
 *
 * Why: both functions of migration 0008 (the claim as 0011 redefined it) keep a generic plan, and
 * the planner costed them from guesses that are wrong in two ways:
 * - The outcome write reads its batch with `json_to_recordset`, taken for 100 rows whatever the
 *   batch holds. Below some 20,000–40,000 deliveries the planner judged reading the whole table
 *   into a hash join cheaper than 100 index lookups: 1.6 ms of a 5.9 ms statement at 12,600
 *   deliveries for a batch of 30, growing with the table until the plan flipped.
 * - The claim joined the claimed rows back to the deliveries together with their endpoints. The
 *   planner multiplies the selectivities of `partner_id` and `endpoint_id`, which are correlated
 *   (an endpoint belongs to one partner), so it took the endpoint's whole delivery history for one
 *   row, and reached each claimed delivery through `webhook_deliveries_by_endpoint`, reading every
 *   delivery of its endpoint: 5–7 ms per claim with 50–200 endpoints and 1,000–20,000 deliveries,
 *   600 ms with 1,000 endpoints and 300,000 — and the limit of the claim, a parameter, was guessed
 *   at 10 % of the due rows, which made hashing look cheap.
 * (bench/webhooks-statements; docs/performance.md.)
 *
 * Now the claim updates the claimed rows joined by primary key alone, and reads their endpoints
 * and events afterwards, from the update's RETURNING; and both functions leave the planner only
 * nested loops of index lookups (sequential scans, hash and merge joins off for these functions
 * alone: a claim is at most 64 rows and an outcome batch at most 256). The outcome write's attempt
 * rows take their values from its update's RETURNING, so neither statement has a join those
 * settings could slow down.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import {
  CLAIM_DUE_COLUMNS,
  CLAIM_DUE_SIGNATURE,
  FINISH_ATTEMPTS_COLUMNS,
  FINISH_ATTEMPTS_SIGNATURE,
  fencedOutcomes,
  plannedOnce
} from "./0008_webhook_worker_functions.js"

/** Planner settings of both functions: index lookups only. */
export const KEY_LOOKUPS_ONLY = ["enable_seqscan = off", "enable_hashjoin = off", "enable_mergejoin = off"]

/**
 * The claim's first two steps as this migration defines them: `due`, the candidates (the due
 * condition is migration 0011's, it matches the due index; the endpoint check as in 0008), and
 * `claimed`, their update by primary key alone. Migration 0013 keeps them.
 */
export const CLAIMED_0012 = `WITH due AS (
    SELECT d.partner_id, d.id FROM webhook_deliveries d
    WHERE d.status = 'pending' AND NOT d.endpoint_paused AND d.next_attempt_at <= p_now
      AND (SELECT e.active AND e.deleted_at IS NULL FROM webhook_endpoints e WHERE e.partner_id = d.partner_id AND e.id = d.endpoint_id)
    ORDER BY d.next_attempt_at
    LIMIT p_limit
    FOR UPDATE OF d SKIP LOCKED
  ), claimed AS (
    UPDATE webhook_deliveries d
    SET status = 'delivering', attempts = d.attempts + 1, next_attempt_at = NULL,
      lease_until = p_lease_until, claim_token = p_claim_token, updated_at = p_now
    FROM due
    WHERE d.partner_id = due.partner_id AND d.id = due.id
    RETURNING d.partner_id, d.id, d.endpoint_id, d.event_id, d.event_type, d.attempts, d.lease_until
  )`

/** The claim function as this migration defines it (bench/webhooks-deleted measures the one after it against it). */
export const CLAIM_DUE_0012 = plannedOnce(
  CLAIM_DUE_SIGNATURE,
  CLAIM_DUE_COLUMNS,
  // Endpoints are never removed (a deletion is soft) and deliveries reference their event, so
  // every claimed row finds both.
  `${CLAIMED_0012}
  SELECT c.partner_id, c.id, c.endpoint_id, c.event_id, c.event_type, c.attempts, c.lease_until,
    ev.payload, e.url, e.secret, e.previous_secret, e.previous_secret_valid_until
  FROM claimed c
  JOIN webhook_endpoints e ON e.partner_id = c.partner_id AND e.id = c.endpoint_id
  JOIN webhook_events ev ON ev.partner_id = c.partner_id AND ev.id = c.event_id`,
  KEY_LOOKUPS_ONLY
)

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP FUNCTION webhook_claim_due(bigint, bigint, integer, text)`
  yield* sql.unsafe(CLAIM_DUE_0012)
  yield* sql`DROP FUNCTION webhook_finish_attempts(json, bigint)`
  yield* sql.unsafe(
    plannedOnce(
      FINISH_ATTEMPTS_SIGNATURE,
      FINISH_ATTEMPTS_COLUMNS,
      // The attempt rows take their values from the update's RETURNING: no join back to `input`.
      `${fencedOutcomes("d.partner_id, d.id, d.status, d.endpoint_id, i.attempt, i.started_at, i.duration_ms, i.response_status, i.error")}, a AS (
        INSERT INTO webhook_attempts (partner_id, delivery_id, attempt, started_at, duration_ms, response_status, error)
        SELECT u.partner_id, u.id, u.attempt, u.started_at, u.duration_ms, u.response_status, u.error FROM u
        RETURNING 1
      )
      SELECT u.id, u.status, EXISTS (SELECT 1 FROM webhook_endpoints e
        WHERE e.partner_id = u.partner_id AND e.id = u.endpoint_id AND e.deleted_at IS NOT NULL)
      FROM u`,
      KEY_LOOKUPS_ONLY
    )
  )
})

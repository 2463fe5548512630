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
import { plannedOnce } from "./0008_webhook_worker_functions.js"

/** Planner settings of both functions: index lookups only. */
export const KEY_LOOKUPS_ONLY = ["enable_seqscan = off", "enable_hashjoin = off", "enable_mergejoin = off"]

/** The claim function as this migration defines it (bench/webhooks-deleted measures the one after it against it). */
export const CLAIM_DUE_0012 = plannedOnce(
  "webhook_claim_due(p_now bigint, p_lease_until bigint, p_limit integer, p_claim_token text)",
  `partner_id text, id uuid, endpoint_id uuid, event_id uuid, event_type text, attempts integer,
  lease_until bigint, payload text, url text, secret text, previous_secret text, previous_secret_valid_until bigint`,
  // The due condition is migration 0011's (it matches the due index); the rest as in 0008.
  `WITH due AS (
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
  )
  -- Endpoints are never removed (a deletion is soft) and deliveries reference their event, so
  -- every claimed row finds both.
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
      "webhook_finish_attempts(p_outcomes json, p_now bigint)",
      "id uuid, status text, endpoint_deleted boolean",
      `WITH input AS (
        SELECT * FROM json_to_recordset(p_outcomes) AS t(partner_id text, id uuid, claim_token text, status text,
          attempts int, next_attempt_at bigint, attempt int, started_at bigint, duration_ms bigint, response_status int, error text)
      ), u AS (
        UPDATE webhook_deliveries d SET status = i.status, attempts = i.attempts, next_attempt_at = i.next_attempt_at,
          lease_until = NULL, claim_token = NULL, updated_at = p_now
        FROM input i
        WHERE d.partner_id = i.partner_id AND d.id = i.id AND d.claim_token = i.claim_token
        RETURNING d.partner_id, d.id, d.status, d.endpoint_id, i.attempt, i.started_at, i.duration_ms, i.response_status, i.error
      ), a AS (
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

/**
 * The outcome write looks each delivery up by key, whatever the size of the delivery table.
 *
 * Why: `webhook_finish_attempts` (migration 0008) joins the batch of outcomes, read from its JSON
 * parameter with `json_to_recordset`, to the deliveries. The planner takes that function for 100
 * rows whatever the batch holds, and below some 20,000–40,000 deliveries it judged reading the
 * whole table (a sequential scan, or with that disabled a full scan of the primary key) into a
 * hash join cheaper than 100 index lookups — and kept that generic plan. So every outcome write of
 * a young installation read the whole delivery table: 1.6 ms of a 5.9 ms statement at 12,600
 * deliveries for a batch of 30, growing with the table until the plan flipped
 * (bench/webhooks-statements; docs/performance.md).
 *
 * A batch is at most 256 outcomes, each found by key, so the statement now leaves the planner only
 * that plan: a nested loop of index lookups keyed by each outcome (hash and merge joins and
 * sequential scans off for this function alone; turning off sequential scans alone, the planner
 * hashed a full scan of the primary key instead). The attempt rows take their values from the update's RETURNING, so
 * the statement has no other join for those settings to make slower. Otherwise the function is
 * the one of migration 0008.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { plannedOnce } from "./0008_webhook_worker_functions.js"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
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
      ["enable_seqscan = off", "enable_hashjoin = off", "enable_mergejoin = off"]
    )
  )
})

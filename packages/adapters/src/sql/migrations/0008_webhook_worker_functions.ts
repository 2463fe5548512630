/**
 * The delivery worker's two per-batch statements — claim due deliveries, record a batch of
 * outcomes — as PL/pgSQL functions that keep a generic plan.
 *
 * Why: a worker runs these every few milliseconds with only the parameter values changing. Sent
 * as plain statements, Postgres parses and plans each one again: about 0.4 ms per claim, a third
 * of its CPU at the ≈ 30 rows a claim takes (bench/webhooks; docs/performance.md). PL/pgSQL
 * caches the plan of each statement per connection, and `plan_cache_mode = force_generic_plan`
 * makes it keep the parameter-independent plan instead of re-planning for every set of values.
 * The plans are rebuilt when the tables' statistics change (ANALYZE invalidates them).
 *
 * The claim reads due deliveries from the partial due index alone; the endpoint check is a
 * scalar subquery per candidate rather than a join, so the planner has no endpoint-first order to
 * choose. On never-analysed tables (a new install's first minute) it otherwise started from the
 * endpoint and read every delivery of it, delivered ones included: 232 µs of Postgres per delivery
 * against 134–172 this way; analysed, both cost the same (bench/webhooks, ANALYZE=0).
 *
 * The claim encodes the `Claim` transition of the pure state machine (DeliveryState.ts): pending
 * and due → delivering, one more attempt, leased to the claim token. Only a delivering row
 * carries a claim token (the claim sets it, every other write clears it), so the token alone
 * fences an outcome against a lease that ran out and was claimed again.
 *
 * `#variable_conflict use_column`: the functions' output columns share names with table columns;
 * every reference in the bodies is qualified, and this makes any unqualified one mean the column.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A function returning the rows of one statement, whose plan it keeps generic; `settings` are
 * further planner settings for that statement alone (`name = value`, one SET clause each).
 */
export const plannedOnce = (
  signature: string,
  returns: string,
  statement: string,
  settings: ReadonlyArray<string> = []
) => `
    CREATE FUNCTION ${signature}
    RETURNS TABLE (${returns})
    LANGUAGE plpgsql
    SET plan_cache_mode = force_generic_plan${settings
      .map(
        (setting) => `
    SET ${setting}`
      )
      .join("")}
    AS $fn$
    #variable_conflict use_column
    BEGIN
      RETURN QUERY
      ${statement};
    END
    $fn$`

/** The claim function's parameters and rows, the same in every migration that redefines it. */
export const CLAIM_DUE_SIGNATURE =
  "webhook_claim_due(p_now bigint, p_lease_until bigint, p_limit integer, p_claim_token text)"
export const CLAIM_DUE_COLUMNS = `partner_id text, id uuid, endpoint_id uuid, event_id uuid, event_type text, attempts integer,
  lease_until bigint, payload text, url text, secret text, previous_secret text, previous_secret_valid_until bigint`
/** The outcome write's parameters and rows, the same in every migration that redefines it. */
export const FINISH_ATTEMPTS_SIGNATURE = "webhook_finish_attempts(p_outcomes json, p_now bigint)"
export const FINISH_ATTEMPTS_COLUMNS = "id uuid, status text, endpoint_deleted boolean"

/**
 * The outcome write's start: the batch (one JSON array) as rows `input`, then `u`, the fenced
 * update of the deliveries still held by their claim, answering `returning`.
 */
export const fencedOutcomes = (returning: string) => `WITH input AS (
    SELECT * FROM json_to_recordset(p_outcomes) AS t(partner_id text, id uuid, claim_token text, status text,
      attempts int, next_attempt_at bigint, attempt int, started_at bigint, duration_ms bigint, response_status int, error text)
  ), u AS (
    UPDATE webhook_deliveries d SET status = i.status, attempts = i.attempts, next_attempt_at = i.next_attempt_at,
      lease_until = NULL, claim_token = NULL, updated_at = p_now
    FROM input i
    WHERE d.partner_id = i.partner_id AND d.id = i.id AND d.claim_token = i.claim_token
    RETURNING ${returning}
  )`

/**
 * The claim function's definition, with `pending` the condition a due candidate meets (it must
 * imply the due index's own, so the generic plan can walk that index). Migration 0011 redefines
 * the function with the index it makes; the text here is otherwise what 0008 created.
 */
export const claimDueFunction = (pending: string) =>
  plannedOnce(
    CLAIM_DUE_SIGNATURE,
    CLAIM_DUE_COLUMNS,
    `WITH due AS (
        SELECT d.partner_id, d.id FROM webhook_deliveries d
        WHERE ${pending} AND d.next_attempt_at <= p_now
          AND (SELECT e.active AND e.deleted_at IS NULL FROM webhook_endpoints e WHERE e.partner_id = d.partner_id AND e.id = d.endpoint_id)
        ORDER BY d.next_attempt_at
        LIMIT p_limit
        FOR UPDATE OF d SKIP LOCKED
      )
      UPDATE webhook_deliveries d
      SET status = 'delivering', attempts = d.attempts + 1, next_attempt_at = NULL,
        lease_until = p_lease_until, claim_token = p_claim_token, updated_at = p_now
      FROM due, webhook_endpoints e, webhook_events ev
      WHERE d.partner_id = due.partner_id AND d.id = due.id
        AND e.partner_id = d.partner_id AND e.id = d.endpoint_id
        AND ev.partner_id = d.partner_id AND ev.id = d.event_id
      RETURNING d.partner_id, d.id, d.endpoint_id, d.event_id, d.event_type, d.attempts, d.lease_until,
        ev.payload, e.url, e.secret, e.previous_secret, e.previous_secret_valid_until`
  )

/** The outcome write as this migration defined it (migration 0012 replaces it; bench/webhooks-statements measures both). */
export const FINISH_ATTEMPTS_0008 = plannedOnce(
  FINISH_ATTEMPTS_SIGNATURE,
  FINISH_ATTEMPTS_COLUMNS,
  `${fencedOutcomes("d.partner_id, d.id, d.status, d.endpoint_id")}, a AS (
    INSERT INTO webhook_attempts (partner_id, delivery_id, attempt, started_at, duration_ms, response_status, error)
    SELECT i.partner_id, i.id, i.attempt, i.started_at, i.duration_ms, i.response_status, i.error
    FROM input i JOIN u ON u.partner_id = i.partner_id AND u.id = i.id
    RETURNING 1
  )
  SELECT u.id, u.status, EXISTS (SELECT 1 FROM webhook_endpoints e
    WHERE e.partner_id = u.partner_id AND e.id = u.endpoint_id AND e.deleted_at IS NOT NULL)
  FROM u`
)

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(claimDueFunction("d.status = 'pending'"))
  // The outcomes travel as one JSON array (one native JSON.stringify on the client, cheaper than
  // eleven array parameters); the fenced UPDATE keeps only rows still held by their claim, and
  // the attempt rows are inserted for exactly those. Fencing by the token alone, not also by
  // `status = 'delivering'`: that condition invites the planner to read the whole `leases`
  // partial index, dead entries of every recent claim included, instead of the primary key.
  yield* sql.unsafe(FINISH_ATTEMPTS_0008)
})

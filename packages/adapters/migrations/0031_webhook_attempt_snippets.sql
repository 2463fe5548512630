-- The first KiB of each attempt's response body (core's transport/responseSnippet.ts), for the
-- cabinet's message page and the API's delivery read: text, at most 1,024 characters (decoded from
-- at most 1,024 bytes), never a header. Older attempts have none (NULL).
--
-- The outcome write is recreated in full with the new field: this file holds its complete live text.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

ALTER TABLE webhook_attempts ADD COLUMN response_snippet text CHECK (char_length(response_snippet) <= 1024);

DROP FUNCTION webhook_finish_attempts(json, bigint);

-- Records a batch of outcomes, fenced by each delivery's claim token (migrations 0008, 0012), and
-- in the same statement each endpoint's health (core's `afterOutcomes`): per endpoint, its latest
-- success in the batch and the dead letters after it (an answer's time is its attempt's start plus
-- its duration). A health row is written only when it changes beyond SUCCESS_RESOLUTION_MS (1 s):
-- a steady stream of successes writes it about once a second and locks nothing in between. Rows
-- are written in key order, so two writers never deadlock on them.
CREATE FUNCTION webhook_finish_attempts(p_outcomes json, p_now bigint)
RETURNS TABLE (id uuid, status text, endpoint_deleted boolean)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH input AS (
    SELECT * FROM json_to_recordset(p_outcomes) AS t(partner_id text, id uuid, claim_token text, status text,
      attempts int, next_attempt_at bigint, attempt int, started_at bigint, duration_ms bigint, response_status int, error text,
      response_snippet text)
  ), u AS (
    UPDATE webhook_deliveries d SET status = i.status, attempts = i.attempts, next_attempt_at = i.next_attempt_at,
      lease_until = NULL, claim_token = NULL, updated_at = p_now
    FROM input i
    WHERE d.partner_id = i.partner_id AND d.id = i.id AND d.claim_token = i.claim_token
    RETURNING d.partner_id, d.id, d.status, d.endpoint_id, i.attempt, i.started_at, i.duration_ms, i.response_status, i.error,
      i.response_snippet
  ), a AS (
    INSERT INTO webhook_attempts (partner_id, delivery_id, attempt, started_at, duration_ms, response_status, error,
      response_snippet)
    SELECT u.partner_id, u.id, u.attempt, u.started_at, u.duration_ms, u.response_status, u.error, u.response_snippet FROM u
    RETURNING 1
  ), ended AS (
    SELECT u.partner_id, u.endpoint_id, u.status, u.started_at + u.duration_ms AS at,
      max(u.started_at + u.duration_ms) FILTER (WHERE u.status = 'delivered')
        OVER (PARTITION BY u.partner_id, u.endpoint_id) AS success_at
    FROM u WHERE u.status IN ('delivered', 'dead_lettered')
  ), batch AS (
    SELECT x.partner_id, x.endpoint_id, x.success_at,
      count(*) FILTER (WHERE x.status = 'dead_lettered' AND x.at > coalesce(x.success_at, -1))::int AS dead,
      min(x.at) FILTER (WHERE x.status = 'dead_lettered' AND x.at > coalesce(x.success_at, -1)) AS dead_from
    FROM ended x GROUP BY x.partner_id, x.endpoint_id, x.success_at
  ), h AS (
    INSERT INTO webhook_endpoint_health AS c (partner_id, endpoint_id, last_success_at, failing_since, strikes, strikes_since)
    SELECT b.partner_id, b.endpoint_id, b.success_at, b.dead_from, b.dead, b.dead_from
    FROM batch b
    LEFT JOIN webhook_endpoint_health o ON o.partner_id = b.partner_id AND o.endpoint_id = b.endpoint_id
    -- What the snapshot shows unchanged is left alone, unlocked; the conflict clause decides again.
    WHERE o.endpoint_id IS NULL OR b.dead > 0 OR o.failing_since IS NOT NULL OR o.strikes > 0
      OR o.last_success_at IS NULL OR o.last_success_at < b.success_at - 1000
    ORDER BY b.partner_id, b.endpoint_id
    ON CONFLICT (partner_id, endpoint_id) DO UPDATE SET
      last_success_at = CASE WHEN excluded.last_success_at IS NULL THEN c.last_success_at
        ELSE greatest(c.last_success_at, excluded.last_success_at) END,
      failing_since = CASE WHEN excluded.last_success_at IS NULL THEN coalesce(c.failing_since, excluded.failing_since)
        ELSE excluded.failing_since END,
      strikes = CASE WHEN excluded.last_success_at IS NULL THEN c.strikes + excluded.strikes ELSE excluded.strikes END,
      strikes_since = CASE WHEN excluded.last_success_at IS NULL THEN coalesce(c.strikes_since, excluded.strikes_since)
        ELSE excluded.strikes_since END
    WHERE excluded.strikes > 0 OR c.failing_since IS NOT NULL OR c.strikes > 0
      OR c.last_success_at IS NULL OR c.last_success_at < excluded.last_success_at - 1000
    RETURNING 1
  )
  SELECT u.id, u.status, EXISTS (SELECT 1 FROM webhook_endpoints e
    WHERE e.partner_id = u.partner_id AND e.id = u.endpoint_id AND e.deleted_at IS NOT NULL)
  FROM u;
END
$fn$;

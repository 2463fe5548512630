-- The delivery worker's two per-batch statements, claim and outcome write, as PL/pgSQL functions
-- that keep a generic plan: no parse and plan every few milliseconds (docs/decisions.md). The claim's
-- endpoint check is a scalar subquery per candidate, so the planner has no endpoint-first order to
-- choose. Only a delivering row carries a claim token, so the token alone fences an outcome.
-- #variable_conflict use_column: output columns share names with table columns.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

CREATE FUNCTION webhook_claim_due(p_now bigint, p_lease_until bigint, p_limit integer, p_claim_token text)
RETURNS TABLE (partner_id text, id uuid, endpoint_id uuid, event_id uuid, event_type text, attempts integer,
  lease_until bigint, payload text, url text, secret text, previous_secret text, previous_secret_valid_until bigint)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
AS $fn$
    #variable_conflict use_column
    BEGIN
      RETURN QUERY
      WITH due AS (
        SELECT d.partner_id, d.id FROM webhook_deliveries d
        WHERE d.status = 'pending' AND d.next_attempt_at <= p_now
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
        ev.payload, e.url, e.secret, e.previous_secret, e.previous_secret_valid_until;
    END
    $fn$;

CREATE FUNCTION webhook_finish_attempts(p_outcomes json, p_now bigint)
RETURNS TABLE (id uuid, status text, endpoint_deleted boolean)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
AS $fn$
    #variable_conflict use_column
    BEGIN
      RETURN QUERY
      WITH input AS (
    SELECT * FROM json_to_recordset(p_outcomes) AS t(partner_id text, id uuid, claim_token text, status text,
      attempts int, next_attempt_at bigint, attempt int, started_at bigint, duration_ms bigint, response_status int, error text)
  ), u AS (
    UPDATE webhook_deliveries d SET status = i.status, attempts = i.attempts, next_attempt_at = i.next_attempt_at,
      lease_until = NULL, claim_token = NULL, updated_at = p_now
    FROM input i
    WHERE d.partner_id = i.partner_id AND d.id = i.id AND d.claim_token = i.claim_token
    RETURNING d.partner_id, d.id, d.status, d.endpoint_id
  ), a AS (
    INSERT INTO webhook_attempts (partner_id, delivery_id, attempt, started_at, duration_ms, response_status, error)
    SELECT i.partner_id, i.id, i.attempt, i.started_at, i.duration_ms, i.response_status, i.error
    FROM input i JOIN u ON u.partner_id = i.partner_id AND u.id = i.id
    RETURNING 1
  )
  SELECT u.id, u.status, EXISTS (SELECT 1 FROM webhook_endpoints e
    WHERE e.partner_id = u.partner_id AND e.id = u.endpoint_id AND e.deleted_at IS NOT NULL)
  FROM u;
    END
    $fn$;

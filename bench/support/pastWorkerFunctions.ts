/**
 * Past definitions of the worker's two functions, copied from the frozen migrations they came
 * from, for the benches that measure this build against them (migrations are imported by nothing).
 */

/** The claim as migration 0011 defined it (0008's, with the due index's condition). */
export const CLAIM_DUE_0011 = `CREATE FUNCTION webhook_claim_due(p_now bigint, p_lease_until bigint, p_limit integer, p_claim_token text)
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
        WHERE d.status = 'pending' AND NOT d.endpoint_paused AND d.next_attempt_at <= p_now
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
    $fn$`

/** The outcome write as migration 0008 defined it. */
export const FINISH_ATTEMPTS_0008 = `CREATE FUNCTION webhook_finish_attempts(p_outcomes json, p_now bigint)
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
    $fn$`

/** The claim as migration 0012 defined it. */
export const CLAIM_DUE_0012 = `CREATE FUNCTION webhook_claim_due(p_now bigint, p_lease_until bigint, p_limit integer, p_claim_token text)
RETURNS TABLE (partner_id text, id uuid, endpoint_id uuid, event_id uuid, event_type text, attempts integer,
  lease_until bigint, payload text, url text, secret text, previous_secret text, previous_secret_valid_until bigint)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $fn$
    #variable_conflict use_column
    BEGIN
      RETURN QUERY
      WITH due AS (
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
  SELECT c.partner_id, c.id, c.endpoint_id, c.event_id, c.event_type, c.attempts, c.lease_until,
    ev.payload, e.url, e.secret, e.previous_secret, e.previous_secret_valid_until
  FROM claimed c
  JOIN webhook_endpoints e ON e.partner_id = c.partner_id AND e.id = c.endpoint_id
  JOIN webhook_events ev ON ev.partner_id = c.partner_id AND ev.id = c.event_id;
    END
    $fn$`

/** The claim as migration 0013 defined it, the one databases ran until migration 0015. */
export const CLAIM_DUE_0013 = `CREATE FUNCTION webhook_claim_due(p_now bigint, p_lease_until bigint, p_limit integer, p_claim_token text)
RETURNS TABLE (partner_id text, id uuid, endpoint_id uuid, event_id uuid, event_type text, attempts integer,
  lease_until bigint, payload text, url text, secret text, previous_secret text, previous_secret_valid_until bigint)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $fn$
    #variable_conflict use_column
    BEGIN
      RETURN QUERY
      WITH due AS (
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
      SELECT c.partner_id, c.id, c.endpoint_id, c.event_id, c.event_type, c.attempts, c.lease_until,
        ev.payload, e.url, e.secret, e.previous_secret, e.previous_secret_valid_until
      FROM claimed c
      CROSS JOIN LATERAL (
        SELECT e.url, e.secret, e.previous_secret, e.previous_secret_valid_until FROM webhook_endpoints e
        WHERE e.partner_id = c.partner_id AND e.id = c.endpoint_id LIMIT 1
      ) e
      CROSS JOIN LATERAL (
        SELECT ev.payload FROM webhook_events ev WHERE ev.partner_id = c.partner_id AND ev.id = c.event_id LIMIT 1
      ) ev;
    END
    $fn$`

/** The outcome write as migration 0012 defined it (and kept until 0019 added endpoint health). */
export const FINISH_ATTEMPTS_0012 = `CREATE FUNCTION webhook_finish_attempts(p_outcomes json, p_now bigint)
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
      FROM u;
    END
    $fn$`

-- A partner's deleted endpoints cost nothing to the claim (each claimed row reads its endpoint and
-- event through a LATERAL lookup by the full primary key) nor to the fan-out (a partial index of live
-- endpoints) (docs/decisions.md).
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

DROP FUNCTION webhook_claim_due(bigint, bigint, integer, text);

CREATE FUNCTION webhook_claim_due(p_now bigint, p_lease_until bigint, p_limit integer, p_claim_token text)
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
    $fn$;

CREATE INDEX webhook_endpoints_live ON webhook_endpoints (partner_id) WHERE deleted_at IS NULL;

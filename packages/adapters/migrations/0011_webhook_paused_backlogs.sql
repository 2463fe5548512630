-- A paused endpoint's backlog out of the claim's way: endpoint_paused copies the endpoint's state
-- onto its pending deliveries and the due index leaves them out; the claim is redefined with the
-- index's condition so its generic plan can use it (docs/decisions.md, "Fan-out at write time").
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

ALTER TABLE webhook_deliveries ADD COLUMN endpoint_paused boolean NOT NULL DEFAULT false;

UPDATE webhook_deliveries d SET endpoint_paused = true FROM webhook_endpoints e
    WHERE d.status = 'pending' AND e.partner_id = d.partner_id AND e.id = d.endpoint_id AND NOT e.active;

DROP INDEX webhook_deliveries_due;

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending' AND NOT endpoint_paused;

DROP FUNCTION webhook_claim_due(bigint, bigint, integer, text);

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
    $fn$;

-- Standard Webhooks signing per endpoint (issue 23): which headers sign an endpoint's deliveries,
-- `frank` (the spec's X-Service-* headers), `standard-webhooks` or `both`. Existing endpoints get
-- `frank` and keep working as before.
--
-- Postgres refuses a new column while a SQL-standard function takes the table's row type, so
-- migration 0015's webhook_endpoint_open and the view that calls it are dropped around the
-- change and recreated as they were. The claim hands the worker each delivery's scheme with its
-- secrets, so it is recreated in full with one more column. This file holds the complete live
-- text of all three.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

DROP VIEW webhook_claimable_deliveries;
DROP FUNCTION webhook_endpoint_open(webhook_endpoints);

ALTER TABLE webhook_endpoints ADD COLUMN signature_scheme text NOT NULL DEFAULT 'frank'
  CONSTRAINT webhook_endpoints_signature_scheme CHECK (signature_scheme IN ('frank', 'standard-webhooks', 'both'));

-- The endpoint's half of "claimable" (0015): active and not deleted.
CREATE FUNCTION webhook_endpoint_open(e webhook_endpoints) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN e.active AND e.deleted_at IS NULL;

-- The deliveries the claim takes once due (0015).
CREATE VIEW webhook_claimable_deliveries AS
SELECT d.* FROM webhook_deliveries d
WHERE webhook_delivery_waiting(d)
  AND (SELECT webhook_endpoint_open(e) FROM webhook_endpoints e WHERE e.partner_id = d.partner_id AND e.id = d.endpoint_id);

DROP FUNCTION webhook_claim_due(bigint, bigint, integer, text);

-- Pending and due -> delivering, one more attempt, leased to the claim token (the Claim transition
-- of core's DeliveryState). The claimed rows are updated by primary key alone, and their
-- endpoints and events read afterwards by full primary key (LATERAL ... LIMIT 1 keeps the planner
-- from flattening them into a join); index lookups only (migrations 0012, 0013).
CREATE FUNCTION webhook_claim_due(p_now bigint, p_lease_until bigint, p_limit integer, p_claim_token text)
RETURNS TABLE (partner_id text, id uuid, endpoint_id uuid, event_id uuid, event_type text, attempts integer,
  lease_until bigint, payload text, url text, secret text, previous_secret text, previous_secret_valid_until bigint,
  signature_scheme text)
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
    SELECT d.partner_id, d.id FROM webhook_claimable_deliveries d
    WHERE d.next_attempt_at <= p_now
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
    ev.payload, e.url, e.secret, e.previous_secret, e.previous_secret_valid_until, e.signature_scheme
  FROM claimed c
  CROSS JOIN LATERAL (
    SELECT e.url, e.secret, e.previous_secret, e.previous_secret_valid_until, e.signature_scheme FROM webhook_endpoints e
    WHERE e.partner_id = c.partner_id AND e.id = c.endpoint_id LIMIT 1
  ) e
  CROSS JOIN LATERAL (
    SELECT ev.payload FROM webhook_events ev WHERE ev.partner_id = c.partner_id AND ev.id = c.event_id LIMIT 1
  ) ev;
END
$fn$;

-- Uncertain means sent (issue 31): a claimed delivery is marked `sent_at` by the worker, per batch
-- in one statement, right before its request goes out. At lease expiry a marked delivery becomes
-- uncertain; an unmarked one (the worker died between claim and send) returns to pending with its
-- attempt uncounted and is retried by itself.
--
-- Postgres refuses a new column while a SQL-standard function takes the table's row type, so
-- migration 0015's webhook_delivery_waiting and the view that calls it are dropped around the
-- change and recreated as they were. The claim clears the mark of an earlier attempt, so it is
-- recreated in full with that one more assignment. This file holds the complete live text of the
-- three, and of the mark.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

DROP VIEW webhook_claimable_deliveries;
DROP FUNCTION webhook_delivery_waiting(webhook_deliveries);

-- When the current claim's request was handed to the network; NULL while leased but unsent. Not
-- indexed, so the mark can be a HOT update.
ALTER TABLE webhook_deliveries ADD COLUMN sent_at bigint;

-- The delivery's half of "claimable" (0015): pending and not flagged paused.
CREATE FUNCTION webhook_delivery_waiting(d webhook_deliveries) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN d.status = 'pending' AND NOT d.endpoint_paused;

-- The deliveries the claim takes once due (0015).
CREATE VIEW webhook_claimable_deliveries AS
SELECT d.* FROM webhook_deliveries d
WHERE webhook_delivery_waiting(d)
  AND (SELECT webhook_endpoint_open(e) FROM webhook_endpoints e WHERE e.partner_id = d.partner_id AND e.id = d.endpoint_id);

DROP FUNCTION webhook_claim_due(bigint, bigint, integer, text);

-- Pending and due -> delivering, one more attempt, leased to the claim token, not yet sent (the
-- Claim transition of core's DeliveryState). The claimed rows are updated by primary key alone,
-- and their endpoints and events read afterwards by full primary key (LATERAL ... LIMIT 1 keeps
-- the planner from flattening them into a join); index lookups only (migrations 0012, 0013).
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
      lease_until = p_lease_until, claim_token = p_claim_token, sent_at = NULL, updated_at = p_now
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

-- The worker's mark, one statement per batch right before its requests go out: each claim still
-- held by its token is stamped sent. By primary key only; updated_at is left alone (the mark is
-- no change a partner sees).
CREATE FUNCTION webhook_mark_sent(p_partner_ids text[], p_ids uuid[], p_claim_tokens text[], p_now bigint)
RETURNS integer
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $fn$
DECLARE
  marked integer;
BEGIN
  UPDATE webhook_deliveries d SET sent_at = p_now
  FROM unnest(p_partner_ids, p_ids, p_claim_tokens) AS k(partner_id, id, claim_token)
  WHERE d.partner_id = k.partner_id AND d.id = k.id AND d.claim_token = k.claim_token;
  GET DIAGNOSTICS marked = ROW_COUNT;
  RETURN marked;
END
$fn$;

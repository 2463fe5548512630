-- The sent mark per claimed batch instead of per delivery (issue 31). The worker claims a batch
-- under a token of its own and marks it sent as a whole right before its requests go out; marking
-- each delivery row cost a row version, index entries included, per delivery (+25-50 us of
-- Postgres CPU per delivery in bench/webhooks-statements), where one row per batch costs one
-- insert. At lease expiry a delivery whose claim token has a row here becomes uncertain; one
-- without returns to pending. A row goes once its lease has run out and no delivery is still
-- leased under its token (the sweep after the one that settled them).
--
-- The deliveries' sent_at column goes: the claimable view and webhook_delivery_waiting, which
-- take the table's row type, are dropped around the change and recreated as they were, and the
-- claim, which cleared the column, is recreated in full without it. This file holds the complete
-- live text of the three, and of the mark.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

CREATE TABLE webhook_sent_claims (
  claim_token text PRIMARY KEY,
  -- The claim's lease end, the same for every delivery of the batch.
  lease_until bigint NOT NULL,
  sent_at bigint NOT NULL
);

DROP VIEW webhook_claimable_deliveries;
DROP FUNCTION webhook_delivery_waiting(webhook_deliveries);

ALTER TABLE webhook_deliveries DROP COLUMN sent_at;

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

-- Pending and due -> delivering, one more attempt, leased to the claim token (the
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

-- The worker's mark, one statement per batch right before its requests go out: one row per claim
-- token. A token marked twice keeps its first row.
--
-- Its commit does not wait for the WAL flush (synchronous_commit off for the calling transaction,
-- which for the worker is this one statement): the flush was most of the mark's cost (about
-- 0.5 ms of backend CPU and several ms of wall time per commit on the bench machine) and all of
-- the time between the mark and the batch's first byte that a crash of the worker can land in.
-- What it risks: Postgres itself crashing before the WAL writer or any later commit (the batch's
-- outcome write is synchronous) flushed the mark. The batch then counts as never sent, and its
-- deliveries go back to pending at lease expiry and are sent again: at least once still holds,
-- only their `uncertain` flag is lost. A crash of the worker alone loses nothing, unless the
-- database runs in the worker's process (embedded PGlite): there a worker crash is a database
-- crash, so that database sets `frank.durable_sent_mark = on` at start and the mark is flushed.
DROP FUNCTION webhook_mark_sent(text[], uuid[], text[], bigint);

CREATE FUNCTION webhook_mark_sent(p_claim_tokens text[], p_lease_untils bigint[], p_now bigint)
RETURNS integer
LANGUAGE plpgsql
AS $fn$
DECLARE
  marked integer;
BEGIN
  IF current_setting('frank.durable_sent_mark', true) IS DISTINCT FROM 'on' THEN
    PERFORM set_config('synchronous_commit', 'off', true);
  END IF;
  INSERT INTO webhook_sent_claims (claim_token, lease_until, sent_at)
  SELECT k.claim_token, k.lease_until, p_now FROM unnest(p_claim_tokens, p_lease_untils) AS k(claim_token, lease_until)
  ON CONFLICT (claim_token) DO NOTHING;
  GET DIAGNOSTICS marked = ROW_COUNT;
  RETURN marked;
END
$fn$;

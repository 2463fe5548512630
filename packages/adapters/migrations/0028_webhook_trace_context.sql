-- Trace context per event (issue 34, OpenTelemetry): the W3C `traceparent` of the span that wrote
-- the event, when tracing recorded one (NULL otherwise, and for every event written before). The
-- worker's span for each delivery attempt links to it, so an attempt hours later, on any host,
-- points back at the request that caused the event.
--
-- The claim returns it beside the payload it already reads from the event row: the claim is
-- recreated in full with one more output column (a function's result type cannot change in place),
-- otherwise as migration 0021 left it. This file holds its complete live text.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

ALTER TABLE webhook_events ADD COLUMN trace_parent text;

DROP FUNCTION webhook_claim_due(bigint, bigint, integer, text);

-- Pending and due -> delivering, one more attempt, leased to the claim token (the
-- Claim transition of core's DeliveryState). The claimed rows are updated by primary key alone,
-- and their endpoints and events read afterwards by full primary key (LATERAL ... LIMIT 1 keeps
-- the planner from flattening them into a join); index lookups only (migrations 0012, 0013).
CREATE FUNCTION webhook_claim_due(p_now bigint, p_lease_until bigint, p_limit integer, p_claim_token text)
RETURNS TABLE (partner_id text, id uuid, endpoint_id uuid, event_id uuid, event_type text, attempts integer,
  lease_until bigint, payload text, url text, secret text, previous_secret text, previous_secret_valid_until bigint,
  signature_scheme text, trace_parent text)
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
    ev.payload, e.url, e.secret, e.previous_secret, e.previous_secret_valid_until, e.signature_scheme, ev.trace_parent
  FROM claimed c
  CROSS JOIN LATERAL (
    SELECT e.url, e.secret, e.previous_secret, e.previous_secret_valid_until, e.signature_scheme FROM webhook_endpoints e
    WHERE e.partner_id = c.partner_id AND e.id = c.endpoint_id LIMIT 1
  ) e
  CROSS JOIN LATERAL (
    SELECT ev.payload, ev.trace_parent FROM webhook_events ev WHERE ev.partner_id = c.partner_id AND ev.id = c.event_id LIMIT 1
  ) ev;
END
$fn$;

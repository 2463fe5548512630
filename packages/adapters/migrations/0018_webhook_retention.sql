-- Retention and bulk recovery (docs/decisions.md, "Retention" and "Bulk recovery").
-- - webhook_events_by_age: retention takes expired events oldest first.
-- - webhook_deliveries_by_event: an event's deliveries by key. Retention reaches an expired event's
--   deliveries through it, and deleting an event checks the deliveries' foreign key through it
--   (without it each deleted event would read its partner's whole delivery history). The one index
--   here the fan-out and the worker's writes maintain (docs/performance.md, "Retention").
-- - webhook_deliveries_failed: recovery reads an endpoint's dead-lettered and uncertain deliveries
--   in creation order. Partial: a row enters it only when it fails for good, never on the fan-out
--   or a claim.
-- Two functions remove expired rows in batches, index lookups only (as the worker's functions,
-- migration 0012): finished deliveries of expired events with their attempts, then expired events
-- left without deliveries. Rows other transactions hold are skipped.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

CREATE INDEX webhook_events_by_age ON webhook_events (occurred_at);

CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (partner_id, event_id);

CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (partner_id, endpoint_id, created_at, id)
  WHERE status IN ('dead_lettered', 'uncertain');

-- Finished deliveries (delivered, dead_lettered, uncertain) created before p_before, oldest event
-- first, at most p_limit, with their attempt rows; answers how many deliveries went.
CREATE FUNCTION webhook_delete_expired_deliveries(p_before bigint, p_limit integer) RETURNS integer
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $fn$
DECLARE
  removed integer;
BEGIN
  WITH expired AS (
    SELECT d.partner_id, d.id FROM webhook_events ev
    JOIN webhook_deliveries d ON d.partner_id = ev.partner_id AND d.event_id = ev.id
    WHERE ev.occurred_at < p_before AND d.created_at < p_before
      AND d.status IN ('delivered', 'dead_lettered', 'uncertain')
    ORDER BY ev.occurred_at
    LIMIT p_limit
    FOR UPDATE OF d SKIP LOCKED
  ), gone AS (
    DELETE FROM webhook_deliveries d USING expired
    WHERE d.partner_id = expired.partner_id AND d.id = expired.id
    RETURNING d.partner_id, d.id
  ), attempts AS (
    DELETE FROM webhook_attempts a USING gone
    WHERE a.partner_id = gone.partner_id AND a.delivery_id = gone.id
  )
  SELECT count(*) INTO removed FROM gone;
  RETURN removed;
END
$fn$;

-- Events that occurred before p_before and have no delivery left, oldest first, at most p_limit;
-- answers how many went.
CREATE FUNCTION webhook_delete_expired_events(p_before bigint, p_limit integer) RETURNS integer
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $fn$
DECLARE
  removed integer;
BEGIN
  WITH expired AS (
    SELECT ev.partner_id, ev.id FROM webhook_events ev
    WHERE ev.occurred_at < p_before
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.partner_id = ev.partner_id AND d.event_id = ev.id)
    ORDER BY ev.occurred_at
    LIMIT p_limit
    FOR UPDATE OF ev SKIP LOCKED
  ), gone AS (
    DELETE FROM webhook_events ev USING expired
    WHERE ev.partner_id = expired.partner_id AND ev.id = expired.id
    RETURNING 1
  )
  SELECT count(*) INTO removed FROM gone;
  RETURN removed;
END
$fn$;

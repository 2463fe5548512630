-- Event ids in a small unpartitioned table (issue 34; docs/decisions.md, "Webhook history
-- partitions"). Since 0032 the events' key includes their slot time, so the fan-out checked an id
-- with webhook_event_id_free: an advisory lock and a probe that starts one subplan per day slot
-- (an event id says nothing of its day), the largest part of what partitions cost the worker's path.
-- Now the fan-out claims the id in webhook_event_ids with INSERT ... ON CONFLICT DO NOTHING: a
-- repeat writes nothing, and a concurrent writer of the same id waits on the first's uncommitted
-- row, then writes nothing (or writes, if the first rolled back), as the lock did.
--
-- An id is free again exactly when its event is gone: retention deletes the ids with the events,
-- in the same transaction: by the slot's bounds when it drops a slot's events partition, by key
-- when it deletes events row by row. `created_at` is the event's (0 for rows written without a
-- slot time, which live in the legacy slot or the default partition).
--
-- Recreated in full: webhook_drop_expired_event_partitions and webhook_delete_expired_events
-- (their live text). Frozen once landed: change the schema in a new file (README.md here).

CREATE TABLE webhook_event_ids (
  partner_id text NOT NULL,
  id uuid NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (partner_id, id)
);

-- A slot's drop deletes its ids by the slot's bounds.
CREATE INDEX webhook_event_ids_by_slot_time ON webhook_event_ids (created_at);

-- The ids of the events there are (ids were unique under 0032's check; DISTINCT keeps the key
-- safe for rows written around it, as a bench's direct inserts may have).
INSERT INTO webhook_event_ids (partner_id, id, created_at)
SELECT DISTINCT ON (partner_id, id) partner_id, id, created_at FROM webhook_events
ORDER BY partner_id, id, created_at;

DROP FUNCTION webhook_event_id_free(text, uuid);

-- Detaches and drops the events' partitions of the slots whose deliveries went, with their ids;
-- answers how many events went with them.
CREATE OR REPLACE FUNCTION webhook_drop_expired_event_partitions() RETURNS integer
LANGUAGE plpgsql
SET lock_timeout = '5s'
AS $fn$
DECLARE
  s record;
  v_rows integer;
  v_removed integer := 0;
BEGIN
  FOR s IN SELECT suffix, lower, upper FROM webhook_history_partitions WHERE events_only ORDER BY upper LOOP
    EXECUTE format('SELECT count(*)::integer FROM %I', 'webhook_events_' || s.suffix) INTO v_rows;
    EXECUTE format('ALTER TABLE webhook_events DETACH PARTITION %I', 'webhook_events_' || s.suffix);
    EXECUTE format('DROP TABLE %I', 'webhook_events_' || s.suffix);
    -- The slot's bounds are its events' (lower NULL: MINVALUE, the legacy slot).
    DELETE FROM webhook_event_ids i WHERE i.created_at < s.upper AND (s.lower IS NULL OR i.created_at >= s.lower);
    DELETE FROM webhook_history_partitions WHERE suffix = s.suffix;
    v_removed := v_removed + v_rows;
  END LOOP;
  RETURN v_removed;
END
$fn$;

-- Events that occurred before the row cut of p_before and have no delivery left, oldest first, at
-- most p_limit, with their ids; answers how many went.
CREATE OR REPLACE FUNCTION webhook_delete_expired_events(p_before bigint, p_limit integer) RETURNS integer
LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $fn$
DECLARE
  removed integer;
  v_cut bigint := coalesce(webhook_row_retention_cut(p_before), p_before);
BEGIN
  WITH expired AS (
    SELECT ev.partner_id, ev.id, ev.created_at FROM webhook_events ev
    WHERE ev.occurred_at < v_cut AND ev.created_at < v_cut
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.partner_id = ev.partner_id AND d.event_id = ev.id)
    ORDER BY ev.occurred_at
    LIMIT p_limit
    FOR UPDATE OF ev SKIP LOCKED
  ), gone AS (
    DELETE FROM webhook_events ev USING expired
    WHERE ev.partner_id = expired.partner_id AND ev.id = expired.id AND ev.created_at = expired.created_at
    RETURNING ev.partner_id, ev.id
  ), ids AS (
    DELETE FROM webhook_event_ids i USING gone WHERE i.partner_id = gone.partner_id AND i.id = gone.id
  )
  SELECT count(*) INTO removed FROM gone;
  RETURN removed;
END
$fn$;

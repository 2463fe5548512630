-- The statements on the webhooks' hot path that read or write every day slot, as functions (issue
-- 36 item 6). Sent as text, PostgreSQL plans a statement at each call, and over the partitioned
-- tables of 0032 the plan can cost more than the run: bench/sustained (pg_stat_statements with
-- track_planning) measured, per call, 0.76 ms of planning against 0.03 ms of execution for the
-- worker's next-wake probe, 1.5 ms against 0.14 ms for its lease sweep, and 0.13-0.19 ms against
-- 0.17-0.26 ms for the fan-out of every event. PL/pgSQL keeps a statement's plan for the session,
-- so the planning is paid once per connection. The worker's two are the text sqlDeliveryQueue.ts
-- and claimSql.ts sent before; the fan-out, sqlEventStore.ts' one statement before, is three.
--
-- Frozen once landed: change the schema in a new file (README.md here).

-- The next instant something is due: the first claimable delivery (the due index in its order,
-- through the claim's own view), the first lease end, the first rotation window's end.
CREATE FUNCTION webhook_next_wake_at() RETURNS bigint
LANGUAGE plpgsql STABLE
AS $fn$
BEGIN
  RETURN least(
    (SELECT d.next_attempt_at FROM webhook_claimable_deliveries d ORDER BY d.next_attempt_at LIMIT 1),
    (SELECT min(dl.lease_until) FROM webhook_deliveries dl WHERE dl.status = 'delivering'),
    (SELECT min(e.previous_secret_valid_until) FROM webhook_endpoints e WHERE e.previous_secret IS NOT NULL)
  );
END
$fn$;

-- Leases that ran out by p_now: a sent claim's deliveries become uncertain (with an attempt that
-- says so), an unsent claim's go back to pending, a deleted endpoint's are dropped, and spent sent
-- marks go. Three disjoint sets by the sent mark and the endpoint's deletion (final once set),
-- each from the leases index; a row a concurrent write moves out of its set is left for the next
-- sweep. A mark goes once no delivery is leased under its token as of this statement's snapshot,
-- so only after the sweep that settled its deliveries. Answers how many became uncertain.
CREATE FUNCTION webhook_expire_leases(p_now bigint) RETURNS integer
LANGUAGE plpgsql
AS $fn$
DECLARE
  v_lost integer;
BEGIN
  -- Data-modifying CTEs run to completion whether read or not.
  WITH lost AS (
    UPDATE webhook_deliveries d SET status = 'uncertain', lease_until = NULL, claim_token = NULL, updated_at = p_now
    WHERE d.status = 'delivering' AND d.lease_until <= p_now
      AND EXISTS (SELECT 1 FROM webhook_sent_claims s WHERE s.claim_token = d.claim_token)
    RETURNING d.partner_id, d.id, d.attempts, d.created_at
  ), unknown AS (
    INSERT INTO webhook_attempts (partner_id, delivery_id, attempt, started_at, duration_ms, response_status, error, delivery_created_at)
    SELECT partner_id, id, attempts, p_now, 0, NULL, 'outcome unknown: the worker stopped mid-request', created_at FROM lost
  ), requeued AS (
    UPDATE webhook_deliveries d SET status = 'pending', attempts = d.attempts - 1, next_attempt_at = p_now,
      lease_until = NULL, claim_token = NULL, updated_at = p_now
    WHERE d.status = 'delivering' AND d.lease_until <= p_now
      AND NOT EXISTS (SELECT 1 FROM webhook_sent_claims s WHERE s.claim_token = d.claim_token)
      AND EXISTS (SELECT 1 FROM webhook_endpoints e
        WHERE e.partner_id = d.partner_id AND e.id = d.endpoint_id AND e.deleted_at IS NULL FOR KEY SHARE)
  ), dropped AS (
    DELETE FROM webhook_deliveries d
    WHERE d.status = 'delivering' AND d.lease_until <= p_now
      AND NOT EXISTS (SELECT 1 FROM webhook_sent_claims s WHERE s.claim_token = d.claim_token)
      AND EXISTS (SELECT 1 FROM webhook_endpoints e
        WHERE e.partner_id = d.partner_id AND e.id = d.endpoint_id AND e.deleted_at IS NOT NULL)
    RETURNING d.partner_id, d.id, d.created_at
  ), dropped_attempts AS (
    DELETE FROM webhook_attempts a USING dropped WHERE a.partner_id = dropped.partner_id AND a.delivery_id = dropped.id
      AND a.delivery_created_at IN (dropped.created_at, 0)
  ), spent_marks AS (
    DELETE FROM webhook_sent_claims s WHERE s.lease_until <= p_now
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries dl
        WHERE dl.status = 'delivering' AND dl.lease_until = s.lease_until AND dl.claim_token = s.claim_token)
  )
  SELECT count(*)::integer INTO v_lost FROM lost;
  RETURN v_lost;
END
$fn$;

-- An event and its deliveries (the outbox write: it joins the caller's transaction). The id is
-- claimed first in webhook_event_ids (0033): a repeat writes nothing, and a concurrent writer of
-- the same id waits for the first to commit. Deliveries go to p_endpoint_id alone (a test event)
-- or, when it is null, to every active endpoint subscribed to the type, each read FOR KEY SHARE
-- (pendingGuard.ts). When deliveries were made and p_notify_channel is given, NOTIFY on it
-- (delivered at commit). Answers how many deliveries were made.
CREATE FUNCTION webhook_append_event(
  p_partner_id text, p_id uuid, p_type text, p_occurred_at bigint, p_payload text, p_trace_parent text,
  p_now bigint, p_endpoint_id uuid, p_notify_channel text, p_notify_payload text
) RETURNS integer
LANGUAGE plpgsql
AS $fn$
DECLARE
  v_made integer;
BEGIN
  INSERT INTO webhook_event_ids (partner_id, id, created_at) VALUES (p_partner_id, p_id, p_now)
  ON CONFLICT DO NOTHING;
  IF NOT FOUND THEN
    RETURN 0;
  END IF;
  INSERT INTO webhook_events (partner_id, id, type, occurred_at, payload, trace_parent, created_at)
  VALUES (p_partner_id, p_id, p_type, p_occurred_at, p_payload, p_trace_parent, p_now);
  -- Two statements, so each keeps a plan of its own: the test event's finds its endpoint by key.
  IF p_endpoint_id IS NOT NULL THEN
    INSERT INTO webhook_deliveries (partner_id, id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
    SELECT p_partner_id, gen_random_uuid(), e.id, p_id, p_type, 'pending', 0, p_now, p_now, p_now
    FROM webhook_endpoints e
    WHERE e.partner_id = p_partner_id AND e.id = p_endpoint_id AND e.deleted_at IS NULL
    FOR KEY SHARE OF e;
  ELSE
    INSERT INTO webhook_deliveries (partner_id, id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
    SELECT p_partner_id, gen_random_uuid(), e.id, p_id, p_type, 'pending', 0, p_now, p_now, p_now
    FROM webhook_endpoints e
    WHERE e.partner_id = p_partner_id AND e.deleted_at IS NULL AND e.active
      AND (e.event_types IS NULL OR p_type = ANY (e.event_types))
    FOR KEY SHARE OF e;
  END IF;
  GET DIAGNOSTICS v_made = ROW_COUNT;
  IF v_made > 0 AND p_notify_channel IS NOT NULL THEN
    PERFORM pg_notify(p_notify_channel, p_notify_payload);
  END IF;
  RETURN v_made;
END
$fn$;

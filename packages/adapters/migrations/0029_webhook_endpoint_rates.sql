-- Per-endpoint delivery rate (issue 34; core's webhooks/deliveryRate.ts). An endpoint with a
-- `rateLimitPerSecond` has a row here, an unlimited one none: the limit, the grants of the last
-- second (claim time and how many attempts each claim started there) and the next slot of the
-- spacing (slots 1 s / limit apart, in microseconds). The claim takes an endpoint's deliveries
-- only as slots come due and while the grants made after `now - 1 s` leave room, so no sliding
-- one-second window holds more attempts than the limit, whichever host claims, and attempts go
-- out evenly. Deliveries past it are deferred (their due time moved to their slot), their
-- attempts unchanged.
--
-- A table of its own rather than a column of webhook_endpoints: its row is locked and rewritten
-- by every claim of a limited endpoint, and those locks never meet the endpoint row's (patches,
-- deletions, the fan-out's KEY SHARE); webhook_endpoints' row type is also used by migration
-- 0015's functions. No foreign key, as for webhook_endpoint_health (0019).
--
-- The claim is recreated in full: this file holds its complete live text. While the table is
-- empty (no endpoint anywhere is limited) it runs the statement of migration 0028 unchanged
-- (0021's, with the event's trace_parent).
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

CREATE TABLE webhook_endpoint_rates (
  partner_id text NOT NULL,
  endpoint_id uuid NOT NULL,
  per_second integer NOT NULL CHECK (per_second BETWEEN 1 AND 10000),
  grant_times bigint[] NOT NULL DEFAULT '{}',
  grant_counts integer[] NOT NULL DEFAULT '{}',
  next_slot_us bigint,
  PRIMARY KEY (partner_id, endpoint_id)
);

-- Takes up to p_wanted attempts for the endpoint at p_now (core's takeRate, the same arithmetic):
-- locks its rate row (claims on several hosts take turns here), drops grants older than a second,
-- grants the due slots (catching up at most a tenth of the limit) that the window
-- leaves room for, and records them. retry_at: when the next attempt may start. An endpoint
-- without a row (unlimited, or made so meanwhile) gets everything.
CREATE FUNCTION webhook_take_rate(p_partner_id text, p_endpoint_id uuid, p_wanted integer, p_now bigint,
  OUT granted integer, OUT retry_at bigint)
LANGUAGE plpgsql
AS $fn$
DECLARE
  v_per_second integer;
  v_times bigint[];
  v_counts integer[];
  v_next bigint;
  v_used integer;
  v_last integer;
  v_step bigint;
  v_first bigint;
  v_slots bigint;
  v_window_frees bigint;
BEGIN
  SELECT r.per_second, r.grant_times, r.grant_counts, r.next_slot_us INTO v_per_second, v_times, v_counts, v_next
  FROM webhook_endpoint_rates r WHERE r.partner_id = p_partner_id AND r.endpoint_id = p_endpoint_id
  FOR UPDATE;
  IF NOT FOUND THEN
    granted := p_wanted;
    retry_at := p_now;
    RETURN;
  END IF;
  SELECT coalesce(array_agg(g.t ORDER BY g.t), '{}'), coalesce(array_agg(g.c ORDER BY g.t), '{}'), coalesce(sum(g.c), 0)
  INTO v_times, v_counts, v_used
  FROM unnest(v_times, v_counts) AS g(t, c) WHERE g.t > p_now - 1000;
  v_step := ceil(1000000.0 / v_per_second)::bigint;
  v_first := p_now * 1000 - (ceil(v_per_second / 10.0)::bigint - 1) * v_step;
  IF v_next IS NOT NULL AND v_next > v_first THEN
    v_first := v_next;
  END IF;
  v_slots := CASE WHEN v_first > p_now * 1000 THEN 0 ELSE (p_now * 1000 - v_first) / v_step + 1 END;
  granted := greatest(0, least(p_wanted::bigint, v_slots, (v_per_second - v_used)::bigint))::integer;
  IF granted > 0 THEN
    v_last := cardinality(v_times);
    IF v_last > 0 AND v_times[v_last] = p_now THEN
      v_counts[v_last] := v_counts[v_last] + granted;
    ELSE
      v_times := v_times || p_now;
      v_counts := v_counts || granted;
    END IF;
    v_next := v_first + granted * v_step;
  END IF;
  UPDATE webhook_endpoint_rates r SET grant_times = v_times, grant_counts = v_counts, next_slot_us = v_next
  WHERE r.partner_id = p_partner_id AND r.endpoint_id = p_endpoint_id;
  v_window_frees := CASE WHEN v_used + granted >= v_per_second THEN coalesce(v_times[1], p_now) + 1000 ELSE p_now END;
  retry_at := greatest(v_window_frees, CASE WHEN v_next IS NULL THEN p_now ELSE ceil(v_next / 1000.0)::bigint END, p_now + 1);
END
$fn$;

DROP FUNCTION webhook_claim_due(bigint, bigint, integer, text);

-- Pending and due -> delivering, one more attempt, leased to the claim token (the Claim transition
-- of core's DeliveryState). The claimed rows are updated by primary key alone, and their
-- endpoints and events read afterwards by full primary key (LATERAL ... LIMIT 1 keeps the planner
-- from flattening them into a join); index lookups only (migrations 0012, 0013).
--
-- With limited endpoints (a row in webhook_endpoint_rates) the claim goes in rounds: lock the due
-- candidates as before, let each limited endpoint among them take its rate (in key order, so two
-- claims never wait on each other's rate rows crosswise), defer the rest of its candidates (the
-- k-th to retry_at plus k slots: a backlog comes due at the rate, core's deferredUntil),
-- claim the others, and go again while deferrals left the batch short (at most 8 rounds).
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
DECLARE
  v_left integer := p_limit;
  v_round integer := 0;
  v_partners text[];
  v_ids uuid[];
  v_deferred integer;
  v_taken integer;
  r record;
  t record;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoint_rates) THEN
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
    RETURN;
  END IF;

  LOOP
    v_round := v_round + 1;
    SELECT array_agg(due.partner_id ORDER BY due.next_attempt_at, due.id), array_agg(due.id ORDER BY due.next_attempt_at, due.id)
    INTO v_partners, v_ids
    FROM (
      SELECT d.partner_id, d.id, d.next_attempt_at FROM webhook_claimable_deliveries d
      WHERE d.next_attempt_at <= p_now
      ORDER BY d.next_attempt_at
      LIMIT v_left
      FOR UPDATE OF d SKIP LOCKED
    ) due;
    EXIT WHEN v_ids IS NULL;
    v_deferred := 0;
    FOR r IN
      SELECT d.partner_id, d.endpoint_id, count(*)::integer AS wanted, min(rt.per_second) AS per_second,
        array_agg(d.id ORDER BY d.next_attempt_at, d.id) AS ids
      FROM unnest(v_partners, v_ids) AS c(partner_id, id)
      JOIN webhook_deliveries d ON d.partner_id = c.partner_id AND d.id = c.id
      JOIN webhook_endpoint_rates rt ON rt.partner_id = d.partner_id AND rt.endpoint_id = d.endpoint_id
      GROUP BY d.partner_id, d.endpoint_id
      ORDER BY d.partner_id, d.endpoint_id
    LOOP
      SELECT * INTO t FROM webhook_take_rate(r.partner_id, r.endpoint_id, r.wanted, p_now);
      IF t.granted < r.wanted THEN
        UPDATE webhook_deliveries d SET next_attempt_at = t.retry_at + ((x.k - 1) * 1000) / r.per_second
        FROM unnest(r.ids[t.granted + 1:]) WITH ORDINALITY AS x(id, k)
        WHERE d.partner_id = r.partner_id AND d.id = x.id;
        v_deferred := v_deferred + r.wanted - t.granted;
      END IF;
    END LOOP;
    RETURN QUERY
    WITH claimed AS (
      UPDATE webhook_deliveries d
      SET status = 'delivering', attempts = d.attempts + 1, next_attempt_at = NULL,
        lease_until = p_lease_until, claim_token = p_claim_token, updated_at = p_now
      FROM unnest(v_partners, v_ids) AS due(partner_id, id)
      WHERE d.partner_id = due.partner_id AND d.id = due.id AND d.next_attempt_at <= p_now
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
    GET DIAGNOSTICS v_taken = ROW_COUNT;
    v_left := v_left - v_taken;
    EXIT WHEN v_left <= 0 OR v_deferred = 0 OR v_round >= 8;
  END LOOP;
END
$fn$;

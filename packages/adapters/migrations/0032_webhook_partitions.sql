-- Webhook history in time partitions (issue 34; docs/decisions.md, "Webhook history partitions").
-- Events, deliveries and attempts become range-partitioned tables keyed by the instant the fan-out
-- wrote them: the event's and its deliveries' `created_at` (the same value, one statement writes
-- them), an attempt's `delivery_created_at` (its delivery's). One slot's three partitions share
-- their bounds, so a slot whose deliveries are all finished goes whole: detached and dropped, no
-- dead tuples, no vacuum. The engine creates slots ahead (webhook_prepare_partitions, called by
-- retention) and lists them in webhook_history_partitions; a DEFAULT partition takes any row no
-- slot covers, so no insert ever fails.
--
-- Keys: a partitioned table's unique keys must include its partition key, so the primary keys
-- gain it; ids stay unique as before (random uuids; an event's deterministic id is checked by
-- the fan-out under an advisory lock). The deliveries' foreign key to events goes: the engine's
-- writes keep it (one statement writes both, retention removes a slot's three tables together).
-- `created_at` 0 on an event or an attempt means "written without a slot time" (rows of the
-- tables before this migration, inserts that do not name it): lookups from a delivery probe its
-- own slot and 0.
--
-- Existing rows are not moved: the old tables become the `legacy` slot, FROM (MINVALUE) TO one
-- past the newest row, attached as they are. Under the migration's ACCESS EXCLUSIVE locks this
-- reads each table once (attach validation) and builds the primary keys that now include the
-- partition key; no heap row is rewritten (the new columns take a constant default). Empty old
-- tables are simply dropped. Retention drops the legacy slot whole once it is past and finished.
--
-- The claim, the outcome write and retention's row deletions are recreated in full: this file
-- holds their complete live text, and that of the claimable view and webhook_delivery_waiting,
-- which take the deliveries' row type.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

DROP VIEW webhook_claimable_deliveries;
DROP FUNCTION webhook_delivery_waiting(webhook_deliveries);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_partner_id_event_id_fkey;

ALTER TABLE webhook_events RENAME TO webhook_events_legacy;
ALTER TABLE webhook_events_legacy RENAME CONSTRAINT webhook_events_pkey TO webhook_events_legacy_pkey;
ALTER INDEX webhook_events_by_age RENAME TO webhook_events_legacy_by_age;
ALTER TABLE webhook_events_legacy ADD COLUMN created_at bigint NOT NULL DEFAULT 0;

ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_legacy;
ALTER TABLE webhook_deliveries_legacy RENAME CONSTRAINT webhook_deliveries_pkey TO webhook_deliveries_legacy_pkey;
ALTER INDEX webhook_deliveries_due RENAME TO webhook_deliveries_legacy_due;
ALTER INDEX webhook_deliveries_leases RENAME TO webhook_deliveries_legacy_leases;
ALTER INDEX webhook_deliveries_newest RENAME TO webhook_deliveries_legacy_newest;
ALTER INDEX webhook_deliveries_by_endpoint RENAME TO webhook_deliveries_legacy_by_endpoint;
ALTER INDEX webhook_deliveries_pending_by_endpoint RENAME TO webhook_deliveries_legacy_pending_by_endpoint;
-- Keyed differently on the new parent (below): attaching builds that one on the legacy rows.
DROP INDEX webhook_deliveries_by_event;
ALTER INDEX webhook_deliveries_failed RENAME TO webhook_deliveries_legacy_failed;

ALTER TABLE webhook_attempts RENAME TO webhook_attempts_legacy;
ALTER TABLE webhook_attempts_legacy RENAME CONSTRAINT webhook_attempts_pkey TO webhook_attempts_legacy_pkey;
-- The numbering moves to the partitioned parent's identity (a partition cannot have one).
ALTER TABLE webhook_attempts_legacy ALTER COLUMN n DROP IDENTITY;
ALTER TABLE webhook_attempts_legacy ADD COLUMN delivery_created_at bigint NOT NULL DEFAULT 0;

CREATE TABLE webhook_events (
  partner_id text NOT NULL,
  id uuid NOT NULL,
  type text NOT NULL,
  occurred_at bigint NOT NULL,
  payload text NOT NULL,
  trace_parent text,
  created_at bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (partner_id, id, created_at)
) PARTITION BY RANGE (created_at);

CREATE INDEX webhook_events_by_age ON webhook_events (occurred_at);

CREATE TABLE webhook_deliveries (
  partner_id text NOT NULL,
  id uuid NOT NULL,
  endpoint_id uuid NOT NULL,
  event_id uuid NOT NULL,
  event_type text NOT NULL,
  status text NOT NULL CONSTRAINT webhook_deliveries_status_check
    CHECK (status IN ('pending', 'delivering', 'delivered', 'uncertain', 'dead_lettered')),
  attempts integer NOT NULL CONSTRAINT webhook_deliveries_attempts_check CHECK (attempts >= 0),
  next_attempt_at bigint,
  lease_until bigint,
  claim_token text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  endpoint_paused boolean NOT NULL DEFAULT false,
  PRIMARY KEY (partner_id, id, created_at),
  -- Named as the old table's, which the attach matches by name.
  CONSTRAINT webhook_deliveries_check CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
  CONSTRAINT webhook_deliveries_check1 CHECK ((status = 'delivering') = (lease_until IS NOT NULL AND claim_token IS NOT NULL))
) PARTITION BY RANGE (created_at);

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending' AND NOT endpoint_paused;
CREATE INDEX webhook_deliveries_leases ON webhook_deliveries (lease_until) WHERE status = 'delivering';
CREATE INDEX webhook_deliveries_newest ON webhook_deliveries (partner_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (partner_id, endpoint_id);
CREATE INDEX webhook_deliveries_pending_by_endpoint ON webhook_deliveries (partner_id, endpoint_id) WHERE status = 'pending';
-- An event's deliveries by the event id alone (0018 keyed it with the partner too): every
-- claim and outcome write adds an entry to it (their updates are never HOT), and a uuid key is
-- half the size; retention's joins and the log filter by partner after it.
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id);
CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (partner_id, endpoint_id, created_at, id)
  WHERE status IN ('dead_lettered', 'uncertain');

CREATE TABLE webhook_attempts (
  partner_id text NOT NULL,
  delivery_id uuid NOT NULL,
  n integer GENERATED ALWAYS AS IDENTITY,
  attempt integer NOT NULL,
  started_at bigint NOT NULL,
  duration_ms bigint NOT NULL,
  response_status integer,
  error text,
  -- Named as 0031 named it on the table that becomes the legacy partition: attaching matches by name.
  response_snippet text CONSTRAINT webhook_attempts_response_snippet_check CHECK (char_length(response_snippet) <= 1024),
  delivery_created_at bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (partner_id, delivery_id, n, delivery_created_at)
) PARTITION BY RANGE (delivery_created_at);

-- The slots: one row per set of three partitions (webhook_events_<suffix>, webhook_deliveries_<suffix>,
-- webhook_attempts_<suffix>), lower NULL for MINVALUE. Written only under its own EXCLUSIVE lock.
CREATE TABLE webhook_history_partitions (
  suffix text PRIMARY KEY,
  lower bigint,
  upper bigint NOT NULL UNIQUE,
  -- Its deliveries and attempts are gone; its events' partition goes next (counted as events).
  events_only boolean NOT NULL DEFAULT false
);

CREATE TABLE webhook_events_default PARTITION OF webhook_events DEFAULT;
CREATE TABLE webhook_deliveries_default PARTITION OF webhook_deliveries DEFAULT;
CREATE TABLE webhook_attempts_default PARTITION OF webhook_attempts DEFAULT;

-- The old rows: the legacy slot, or nothing when there are none.
DO $do$
DECLARE
  v_upper bigint;
BEGIN
  SELECT greatest((SELECT max(created_at) FROM webhook_deliveries_legacy), (SELECT max(occurred_at) FROM webhook_events_legacy))
    INTO v_upper;
  IF v_upper IS NULL AND NOT EXISTS (SELECT 1 FROM webhook_attempts_legacy) THEN
    DROP TABLE webhook_attempts_legacy, webhook_deliveries_legacy, webhook_events_legacy;
    RETURN;
  END IF;
  -- Above 0 as well: 0 marks rows without a slot time (the header), which live in this slot.
  v_upper := greatest(coalesce(v_upper, 0), 0) + 1;
  EXECUTE format('ALTER TABLE webhook_attempts ALTER COLUMN n RESTART WITH %s',
    coalesce((SELECT max(n) FROM webhook_attempts_legacy), 0) + 1);
  -- Their keys without the partition key give way; attaching builds the ones with it.
  ALTER TABLE webhook_events_legacy DROP CONSTRAINT webhook_events_legacy_pkey;
  ALTER TABLE webhook_deliveries_legacy DROP CONSTRAINT webhook_deliveries_legacy_pkey;
  ALTER TABLE webhook_attempts_legacy DROP CONSTRAINT webhook_attempts_legacy_pkey;
  EXECUTE format('ALTER TABLE webhook_events ATTACH PARTITION webhook_events_legacy FOR VALUES FROM (MINVALUE) TO (%s)', v_upper);
  EXECUTE format('ALTER TABLE webhook_deliveries ATTACH PARTITION webhook_deliveries_legacy FOR VALUES FROM (MINVALUE) TO (%s)', v_upper);
  EXECUTE format('ALTER TABLE webhook_attempts ATTACH PARTITION webhook_attempts_legacy FOR VALUES FROM (MINVALUE) TO (%s)', v_upper);
  INSERT INTO webhook_history_partitions (suffix, lower, upper) VALUES ('legacy', NULL, v_upper);
END
$do$;

-- The delivery's half of "claimable" (0015): pending and not flagged paused.
CREATE FUNCTION webhook_delivery_waiting(d webhook_deliveries) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN d.status = 'pending' AND NOT d.endpoint_paused;

-- The deliveries the claim takes once due (0015).
CREATE VIEW webhook_claimable_deliveries AS
SELECT d.* FROM webhook_deliveries d
WHERE webhook_delivery_waiting(d)
  AND (SELECT webhook_endpoint_open(e) FROM webhook_endpoints e WHERE e.partner_id = d.partner_id AND e.id = d.endpoint_id);

-- Whether no event with this id was written yet, for the fan-out's insert (the events' key now
-- includes the slot time, so no unique index can refuse a repeat of a source-derived id). Takes a
-- transaction-scoped lock on the id's hash first; the check, a statement of this volatile
-- function, sees what a writer committed while this one waited.
CREATE FUNCTION webhook_event_id_free(p_partner_id text, p_id uuid) RETURNS boolean
LANGUAGE plpgsql
AS $fn$
BEGIN
  PERFORM pg_advisory_xact_lock(1179798091, hashtext(p_partner_id || ':' || p_id::text));
  RETURN NOT EXISTS (SELECT 1 FROM webhook_events ev WHERE ev.partner_id = p_partner_id AND ev.id = p_id);
END
$fn$;

-- Creates the slots that cover p_now to p_ahead whole widths past its own (slot bounds are
-- multiples of p_width, epoch ms), each as three empty tables attached to their parents (SHARE
-- UPDATE EXCLUSIVE on the parents, not the ACCESS EXCLUSIVE of CREATE TABLE ... PARTITION OF).
-- A new slot starts after the newest slot and after any row the default partition took, so the
-- attach never has to move one. Answers how many slots it made; callers on several hosts take
-- turns on the listing's lock, and a lock not had within lock_timeout fails this call only.
CREATE FUNCTION webhook_prepare_partitions(p_now bigint, p_width bigint, p_ahead integer) RETURNS integer
LANGUAGE plpgsql
SET lock_timeout = '5s'
AS $fn$
DECLARE
  v_target bigint := (p_now / p_width + p_ahead + 1) * p_width;
  v_from bigint;
  v_to bigint;
  v_suffix text;
  v_table text;
  v_made integer := 0;
BEGIN
  IF (SELECT max(upper) FROM webhook_history_partitions) >= v_target THEN
    RETURN 0;
  END IF;
  LOCK TABLE webhook_history_partitions IN EXCLUSIVE MODE;
  -- Writers wait while the slots are made: a row routed while an attach is uncommitted goes to the
  -- default partition, whose constraint already excludes the new range, and its insert fails.
  -- Always in this order (events, deliveries, attempts), the order writers take them in.
  LOCK TABLE webhook_events, webhook_deliveries, webhook_attempts IN SHARE ROW EXCLUSIVE MODE;
  v_from := greatest((SELECT max(upper) FROM webhook_history_partitions), p_now / p_width * p_width,
    (SELECT max(created_at) + 1 FROM webhook_events_default),
    (SELECT max(created_at) + 1 FROM webhook_deliveries_default),
    (SELECT max(delivery_created_at) + 1 FROM webhook_attempts_default));
  WHILE v_from < v_target LOOP
    v_to := (v_from / p_width + 1) * p_width;
    v_suffix := 'p' || v_from;
    FOREACH v_table IN ARRAY ARRAY['webhook_events', 'webhook_deliveries', 'webhook_attempts'] LOOP
      EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', v_table || '_' || v_suffix, v_table);
      EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)',
        v_table, v_table || '_' || v_suffix, v_from, v_to);
    END LOOP;
    INSERT INTO webhook_history_partitions (suffix, lower, upper) VALUES (v_suffix, v_from, v_to);
    v_made := v_made + 1;
    v_from := v_to;
  END LOOP;
  RETURN v_made;
END
$fn$;

-- Detaches and drops the deliveries and attempts of the slots that ended by p_before and hold no
-- pending or delivering delivery; answers how many deliveries went. Their events' partitions go
-- in the events step (webhook_drop_expired_event_partitions). A slot is checked again once its
-- deliveries' partition is detached (no writer can reach it then): one a replay made pending
-- meanwhile is attached back by rolling the step back. Detaching takes the parent's ACCESS
-- EXCLUSIVE lock for the step; a lock not had within lock_timeout fails this call, and the next
-- sweep tries again.
CREATE FUNCTION webhook_drop_expired_partitions(p_before bigint) RETURNS integer
LANGUAGE plpgsql
SET lock_timeout = '5s'
AS $fn$
DECLARE
  s record;
  v_held boolean;
  v_rows integer;
  v_removed integer := 0;
BEGIN
  FOR s IN SELECT suffix FROM webhook_history_partitions WHERE upper <= p_before AND NOT events_only ORDER BY upper LOOP
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE status IN (''pending'', ''delivering''))',
      'webhook_deliveries_' || s.suffix) INTO v_held;
    CONTINUE WHEN v_held;
    BEGIN
      EXECUTE format('ALTER TABLE webhook_deliveries DETACH PARTITION %I', 'webhook_deliveries_' || s.suffix);
      EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE status IN (''pending'', ''delivering''))',
        'webhook_deliveries_' || s.suffix) INTO v_held;
      IF v_held THEN
        RAISE EXCEPTION USING ERRCODE = 'FKEEP', MESSAGE = 'slot ' || s.suffix || ' holds unfinished deliveries';
      END IF;
      EXECUTE format('SELECT count(*)::integer FROM %I', 'webhook_deliveries_' || s.suffix) INTO v_rows;
      EXECUTE format('ALTER TABLE webhook_attempts DETACH PARTITION %I', 'webhook_attempts_' || s.suffix);
      EXECUTE format('DROP TABLE %I, %I', 'webhook_deliveries_' || s.suffix, 'webhook_attempts_' || s.suffix);
      UPDATE webhook_history_partitions SET events_only = true WHERE suffix = s.suffix;
      v_removed := v_removed + v_rows;
    EXCEPTION WHEN SQLSTATE 'FKEEP' THEN
      NULL;
    END;
  END LOOP;
  RETURN v_removed;
END
$fn$;

-- Detaches and drops the events' partitions of the slots whose deliveries went; answers how many
-- events went with them.
CREATE FUNCTION webhook_drop_expired_event_partitions() RETURNS integer
LANGUAGE plpgsql
SET lock_timeout = '5s'
AS $fn$
DECLARE
  s record;
  v_rows integer;
  v_removed integer := 0;
BEGIN
  FOR s IN SELECT suffix FROM webhook_history_partitions WHERE events_only ORDER BY upper LOOP
    EXECUTE format('SELECT count(*)::integer FROM %I', 'webhook_events_' || s.suffix) INTO v_rows;
    EXECUTE format('ALTER TABLE webhook_events DETACH PARTITION %I', 'webhook_events_' || s.suffix);
    EXECUTE format('DROP TABLE %I', 'webhook_events_' || s.suffix);
    DELETE FROM webhook_history_partitions WHERE suffix = s.suffix;
    v_removed := v_removed + v_rows;
  END LOOP;
  RETURN v_removed;
END
$fn$;

-- Where row-by-row retention stops: rows older than p_before, but none of the slot p_before falls
-- in (that slot goes whole once past). What remains below is the slots held by an unfinished
-- delivery and the default partition.
CREATE FUNCTION webhook_row_retention_cut(p_before bigint) RETURNS bigint
LANGUAGE sql STABLE
RETURN least(p_before, (SELECT min(coalesce(p.lower, -9223372036854775808)) FROM webhook_history_partitions p
  WHERE p.upper > p_before));

DROP FUNCTION webhook_delete_expired_deliveries(bigint, integer);

-- Finished deliveries (delivered, dead_lettered, uncertain) created before the row cut of p_before,
-- oldest event first, at most p_limit, with their attempt rows; answers how many deliveries went.
-- Planned per call (a custom plan, unlike 0018's generic one) and bounded by the slot times too, so
-- the planner reads only the partitions below the cut (held days, default, legacy), not all of
-- them: with a month of days a generic plan's start-up over every partition cost more than the
-- work (bench/retention). Its own `created_at` bounds an event's too: 0 or the fan-out's time.
CREATE FUNCTION webhook_delete_expired_deliveries(p_before bigint, p_limit integer) RETURNS integer
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
    SELECT d.partner_id, d.id, d.created_at FROM webhook_events ev
    JOIN webhook_deliveries d ON d.partner_id = ev.partner_id AND d.event_id = ev.id
    WHERE ev.occurred_at < v_cut AND ev.created_at < v_cut AND d.created_at < v_cut
      AND d.status IN ('delivered', 'dead_lettered', 'uncertain')
    ORDER BY ev.occurred_at
    LIMIT p_limit
    FOR UPDATE OF d SKIP LOCKED
  ), gone AS (
    DELETE FROM webhook_deliveries d USING expired
    WHERE d.partner_id = expired.partner_id AND d.id = expired.id AND d.created_at = expired.created_at
    RETURNING d.partner_id, d.id, d.created_at
  ), attempts AS (
    DELETE FROM webhook_attempts a USING gone
    WHERE a.partner_id = gone.partner_id AND a.delivery_id = gone.id AND a.delivery_created_at IN (gone.created_at, 0)
  )
  SELECT count(*) INTO removed FROM gone;
  RETURN removed;
END
$fn$;

DROP FUNCTION webhook_delete_expired_events(bigint, integer);

-- Events that occurred before the row cut of p_before and have no delivery left, oldest first, at
-- most p_limit; answers how many went.
CREATE FUNCTION webhook_delete_expired_events(p_before bigint, p_limit integer) RETURNS integer
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
    RETURNING 1
  )
  SELECT count(*) INTO removed FROM gone;
  RETURN removed;
END
$fn$;

DROP FUNCTION webhook_finish_attempts(json, bigint);

-- Records a batch of outcomes, fenced by each delivery's claim token, and each endpoint's health in
-- the same statement (migration 0019, which says how); the attempt rows carry their delivery's
-- slot time, so they live and go with it. Each outcome names its delivery's `created_at` (the
-- claim answers it): the update finds the row by its full key, and each lookup is pruned to that
-- row's slot as it runs instead of probing every day's index. (A range of the batch's slot times
-- as a parameter would prune at the plan's start too, but the planner then scans that range.)
CREATE FUNCTION webhook_finish_attempts(p_outcomes json, p_now bigint)
RETURNS TABLE (id uuid, status text, endpoint_deleted boolean)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
SET enable_hashjoin = off
SET enable_mergejoin = off
AS $fn$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH input AS (
    SELECT * FROM json_to_recordset(p_outcomes) AS t(partner_id text, id uuid, claim_token text, created_at bigint, status text,
      attempts int, next_attempt_at bigint, attempt int, started_at bigint, duration_ms bigint, response_status int, error text,
      response_snippet text)
  ), u AS (
    UPDATE webhook_deliveries d SET status = i.status, attempts = i.attempts, next_attempt_at = i.next_attempt_at,
      lease_until = NULL, claim_token = NULL, updated_at = p_now
    FROM input i
    WHERE d.partner_id = i.partner_id AND d.id = i.id AND d.created_at = i.created_at AND d.claim_token = i.claim_token
    RETURNING d.partner_id, d.id, d.status, d.endpoint_id, d.created_at, i.attempt, i.started_at, i.duration_ms, i.response_status, i.error,
      i.response_snippet
  ), a AS (
    INSERT INTO webhook_attempts (partner_id, delivery_id, attempt, started_at, duration_ms, response_status, error,
      response_snippet, delivery_created_at)
    SELECT u.partner_id, u.id, u.attempt, u.started_at, u.duration_ms, u.response_status, u.error, u.response_snippet,
      u.created_at FROM u
    RETURNING 1
  ), ended AS (
    SELECT u.partner_id, u.endpoint_id, u.status, u.started_at + u.duration_ms AS at,
      max(u.started_at + u.duration_ms) FILTER (WHERE u.status = 'delivered')
        OVER (PARTITION BY u.partner_id, u.endpoint_id) AS success_at
    FROM u WHERE u.status IN ('delivered', 'dead_lettered')
  ), batch AS (
    SELECT x.partner_id, x.endpoint_id, x.success_at,
      count(*) FILTER (WHERE x.status = 'dead_lettered' AND x.at > coalesce(x.success_at, -1))::int AS dead,
      min(x.at) FILTER (WHERE x.status = 'dead_lettered' AND x.at > coalesce(x.success_at, -1)) AS dead_from
    FROM ended x GROUP BY x.partner_id, x.endpoint_id, x.success_at
  ), h AS (
    INSERT INTO webhook_endpoint_health AS c (partner_id, endpoint_id, last_success_at, failing_since, strikes, strikes_since)
    SELECT b.partner_id, b.endpoint_id, b.success_at, b.dead_from, b.dead, b.dead_from
    FROM batch b
    LEFT JOIN webhook_endpoint_health o ON o.partner_id = b.partner_id AND o.endpoint_id = b.endpoint_id
    -- What the snapshot shows unchanged is left alone, unlocked; the conflict clause decides again.
    WHERE o.endpoint_id IS NULL OR b.dead > 0 OR o.failing_since IS NOT NULL OR o.strikes > 0
      OR o.last_success_at IS NULL OR o.last_success_at < b.success_at - 1000
    ORDER BY b.partner_id, b.endpoint_id
    ON CONFLICT (partner_id, endpoint_id) DO UPDATE SET
      last_success_at = CASE WHEN excluded.last_success_at IS NULL THEN c.last_success_at
        ELSE greatest(c.last_success_at, excluded.last_success_at) END,
      failing_since = CASE WHEN excluded.last_success_at IS NULL THEN coalesce(c.failing_since, excluded.failing_since)
        ELSE excluded.failing_since END,
      strikes = CASE WHEN excluded.last_success_at IS NULL THEN c.strikes + excluded.strikes ELSE excluded.strikes END,
      strikes_since = CASE WHEN excluded.last_success_at IS NULL THEN coalesce(c.strikes_since, excluded.strikes_since)
        ELSE excluded.strikes_since END
    WHERE excluded.strikes > 0 OR c.failing_since IS NOT NULL OR c.strikes > 0
      OR c.last_success_at IS NULL OR c.last_success_at < excluded.last_success_at - 1000
    RETURNING 1
  )
  SELECT u.id, u.status, EXISTS (SELECT 1 FROM webhook_endpoints e
    WHERE e.partner_id = u.partner_id AND e.id = u.endpoint_id AND e.deleted_at IS NOT NULL)
  FROM u;
END
$fn$;

DROP FUNCTION webhook_claim_due(bigint, bigint, integer, text);

-- Pending and due -> delivering (migrations 0021, 0028, 0029 say how, rounds for limited endpoints
-- included). The partitioned tables' keys include the slot time: the unlimited claim updates its
-- rows by full key, and every claim reads the event in its delivery's slot (or 0, the legacy mark),
-- so each lookup probes one or two partitions, not all.
CREATE FUNCTION webhook_claim_due(p_now bigint, p_lease_until bigint, p_limit integer, p_claim_token text)
RETURNS TABLE (partner_id text, id uuid, endpoint_id uuid, event_id uuid, event_type text, attempts integer,
  lease_until bigint, payload text, url text, secret text, previous_secret text, previous_secret_valid_until bigint,
  signature_scheme text, trace_parent text, created_at bigint)
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
  v_created bigint[];
  v_deferred integer;
  v_taken integer;
  r record;
  t record;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoint_rates) THEN
    RETURN QUERY
    WITH due AS (
      SELECT d.partner_id, d.id, d.created_at FROM webhook_claimable_deliveries d
      WHERE d.next_attempt_at <= p_now
      ORDER BY d.next_attempt_at
      LIMIT p_limit
      FOR UPDATE OF d SKIP LOCKED
    ), claimed AS (
      UPDATE webhook_deliveries d
      SET status = 'delivering', attempts = d.attempts + 1, next_attempt_at = NULL,
        lease_until = p_lease_until, claim_token = p_claim_token, updated_at = p_now
      FROM due
      WHERE d.partner_id = due.partner_id AND d.id = due.id AND d.created_at = due.created_at
      RETURNING d.partner_id, d.id, d.endpoint_id, d.event_id, d.event_type, d.attempts, d.lease_until, d.created_at
    )
    SELECT c.partner_id, c.id, c.endpoint_id, c.event_id, c.event_type, c.attempts, c.lease_until,
      ev.payload, e.url, e.secret, e.previous_secret, e.previous_secret_valid_until, e.signature_scheme, ev.trace_parent,
      c.created_at
    FROM claimed c
    CROSS JOIN LATERAL (
      SELECT e.url, e.secret, e.previous_secret, e.previous_secret_valid_until, e.signature_scheme FROM webhook_endpoints e
      WHERE e.partner_id = c.partner_id AND e.id = c.endpoint_id LIMIT 1
    ) e
    CROSS JOIN LATERAL (
      SELECT ev.payload, ev.trace_parent FROM webhook_events ev WHERE ev.partner_id = c.partner_id AND ev.id = c.event_id
        AND ev.created_at IN (c.created_at, 0) LIMIT 1
    ) ev;
    RETURN;
  END IF;

  LOOP
    v_round := v_round + 1;
    SELECT array_agg(due.partner_id ORDER BY due.next_attempt_at, due.id), array_agg(due.id ORDER BY due.next_attempt_at, due.id),
      array_agg(due.created_at ORDER BY due.next_attempt_at, due.id)
    INTO v_partners, v_ids, v_created
    FROM (
      SELECT d.partner_id, d.id, d.next_attempt_at, d.created_at FROM webhook_claimable_deliveries d
      WHERE d.next_attempt_at <= p_now
      ORDER BY d.next_attempt_at
      LIMIT v_left
      FOR UPDATE OF d SKIP LOCKED
    ) due;
    EXIT WHEN v_ids IS NULL;
    v_deferred := 0;
    FOR r IN
      SELECT d.partner_id, d.endpoint_id, count(*)::integer AS wanted, min(rt.per_second) AS per_second,
        array_agg(d.id ORDER BY d.next_attempt_at, d.id) AS ids, array_agg(d.created_at ORDER BY d.next_attempt_at, d.id) AS created
      FROM unnest(v_partners, v_ids, v_created) AS c(partner_id, id, created_at)
      JOIN webhook_deliveries d ON d.partner_id = c.partner_id AND d.id = c.id AND d.created_at = c.created_at
      JOIN webhook_endpoint_rates rt ON rt.partner_id = d.partner_id AND rt.endpoint_id = d.endpoint_id
      GROUP BY d.partner_id, d.endpoint_id
      ORDER BY d.partner_id, d.endpoint_id
    LOOP
      SELECT * INTO t FROM webhook_take_rate(r.partner_id, r.endpoint_id, r.wanted, p_now);
      IF t.granted < r.wanted THEN
        UPDATE webhook_deliveries d SET next_attempt_at = t.retry_at + ((x.k - 1) * 1000) / r.per_second
        FROM unnest(r.ids[t.granted + 1:], r.created[t.granted + 1:]) WITH ORDINALITY AS x(id, created_at, k)
        WHERE d.partner_id = r.partner_id AND d.id = x.id AND d.created_at = x.created_at;
        v_deferred := v_deferred + r.wanted - t.granted;
      END IF;
    END LOOP;
    RETURN QUERY
    WITH claimed AS (
      UPDATE webhook_deliveries d
      SET status = 'delivering', attempts = d.attempts + 1, next_attempt_at = NULL,
        lease_until = p_lease_until, claim_token = p_claim_token, updated_at = p_now
      FROM unnest(v_partners, v_ids, v_created) AS due(partner_id, id, created_at)
      WHERE d.partner_id = due.partner_id AND d.id = due.id AND d.created_at = due.created_at AND d.next_attempt_at <= p_now
      RETURNING d.partner_id, d.id, d.endpoint_id, d.event_id, d.event_type, d.attempts, d.lease_until, d.created_at
    )
    SELECT c.partner_id, c.id, c.endpoint_id, c.event_id, c.event_type, c.attempts, c.lease_until,
      ev.payload, e.url, e.secret, e.previous_secret, e.previous_secret_valid_until, e.signature_scheme, ev.trace_parent,
      c.created_at
    FROM claimed c
    CROSS JOIN LATERAL (
      SELECT e.url, e.secret, e.previous_secret, e.previous_secret_valid_until, e.signature_scheme FROM webhook_endpoints e
      WHERE e.partner_id = c.partner_id AND e.id = c.endpoint_id LIMIT 1
    ) e
    CROSS JOIN LATERAL (
      SELECT ev.payload, ev.trace_parent FROM webhook_events ev WHERE ev.partner_id = c.partner_id AND ev.id = c.event_id
        AND ev.created_at IN (c.created_at, 0) LIMIT 1
    ) ev;
    GET DIAGNOSTICS v_taken = ROW_COUNT;
    v_left := v_left - v_taken;
    EXIT WHEN v_left <= 0 OR v_deferred = 0 OR v_round >= 8;
  END LOOP;
END
$fn$;

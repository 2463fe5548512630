-- Endpoint health (core's webhooks/EndpointHealth.ts), one row per endpoint beside it: when a
-- delivery last succeeded, the failing span (first dead letter after the last success), the pause
-- and its reason, and the dead letters the disable rule counts (strikes, since the later of the
-- last success and the last change of the active flag).
--
-- A table of its own rather than columns of webhook_endpoints: the outcome write updates it, and
-- its row locks then never meet the endpoint row's (patches, deletions, the fan-out's KEY SHARE);
-- webhook_endpoints' row type is also used by migration 0015's functions, so its columns cannot
-- change without recreating them. No foreign key, for the same reason: its check would take a
-- KEY SHARE lock on the endpoint in every outcome write. A missing row reads as a new endpoint's
-- health, so rows are written only when health changes.
--
-- Existing endpoints: lastSuccessAt and failingSince are taken from their deliveries, a pause from
-- the endpoint's last change; strikes start at none, so no endpoint is paused for what happened
-- before this migration (docs/decisions.md, "Endpoint health").
--
-- The outcome write is recreated in full: this file holds its complete live text.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

CREATE TABLE webhook_endpoint_health (
  partner_id text NOT NULL,
  endpoint_id uuid NOT NULL,
  last_success_at bigint,
  failing_since bigint,
  disabled_at bigint,
  disabled_reason text CHECK (disabled_reason IN ('failing')),
  strikes integer NOT NULL DEFAULT 0 CHECK (strikes >= 0),
  strikes_since bigint,
  PRIMARY KEY (partner_id, endpoint_id),
  CHECK ((strikes > 0) = (strikes_since IS NOT NULL))
);

-- The disable rule's candidates: only endpoints with strikes, nearly always none.
CREATE INDEX webhook_endpoint_health_strikes ON webhook_endpoint_health (strikes_since) WHERE strikes_since IS NOT NULL;

INSERT INTO webhook_endpoint_health (partner_id, endpoint_id, last_success_at, disabled_at)
SELECT e.partner_id, e.id,
  (SELECT max(d.updated_at) FROM webhook_deliveries d
    WHERE d.partner_id = e.partner_id AND d.endpoint_id = e.id AND d.status = 'delivered'),
  CASE WHEN e.active THEN NULL ELSE e.updated_at END
FROM webhook_endpoints e WHERE e.deleted_at IS NULL;

UPDATE webhook_endpoint_health h SET failing_since = (SELECT min(d.updated_at) FROM webhook_deliveries d
  WHERE d.partner_id = h.partner_id AND d.endpoint_id = h.endpoint_id AND d.status = 'dead_lettered'
    AND d.updated_at > coalesce(h.last_success_at, -1));

DROP FUNCTION webhook_finish_attempts(json, bigint);

-- Records a batch of outcomes, fenced by each delivery's claim token (migrations 0008, 0012), and
-- in the same statement each endpoint's health (core's `afterOutcomes`): per endpoint, its latest
-- success in the batch and the dead letters after it (an answer's time is its attempt's start plus
-- its duration). A health row is written only when it changes beyond SUCCESS_RESOLUTION_MS (1 s):
-- a steady stream of successes writes it about once a second and locks nothing in between. Rows
-- are written in key order, so two writers never deadlock on them.
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
    SELECT * FROM json_to_recordset(p_outcomes) AS t(partner_id text, id uuid, claim_token text, status text,
      attempts int, next_attempt_at bigint, attempt int, started_at bigint, duration_ms bigint, response_status int, error text)
  ), u AS (
    UPDATE webhook_deliveries d SET status = i.status, attempts = i.attempts, next_attempt_at = i.next_attempt_at,
      lease_until = NULL, claim_token = NULL, updated_at = p_now
    FROM input i
    WHERE d.partner_id = i.partner_id AND d.id = i.id AND d.claim_token = i.claim_token
    RETURNING d.partner_id, d.id, d.status, d.endpoint_id, i.attempt, i.started_at, i.duration_ms, i.response_status, i.error
  ), a AS (
    INSERT INTO webhook_attempts (partner_id, delivery_id, attempt, started_at, duration_ms, response_status, error)
    SELECT u.partner_id, u.id, u.attempt, u.started_at, u.duration_ms, u.response_status, u.error FROM u
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

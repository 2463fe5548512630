-- Webhooks: endpoints, the event outbox, deliveries and their attempts, and the low-balance
-- marker. Two indexes serve the worker across partners: due pending deliveries and leases in flight.
-- Payloads are text holding the exact bytes sent, never jsonb (which would re-serialize them and break
-- signatures between attempts).
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

CREATE TABLE webhook_endpoints (
  partner_id text NOT NULL,
  id uuid NOT NULL,
  url text NOT NULL,
  event_types text[],
  active boolean NOT NULL,
  secret text NOT NULL,
  previous_secret text,
  previous_secret_valid_until bigint,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  deleted_at bigint,
  PRIMARY KEY (partner_id, id)
);

CREATE TABLE webhook_events (
  partner_id text NOT NULL,
  id uuid NOT NULL,
  type text NOT NULL,
  occurred_at bigint NOT NULL,
  payload text NOT NULL,
  PRIMARY KEY (partner_id, id)
);

CREATE TABLE webhook_deliveries (
  partner_id text NOT NULL,
  id uuid NOT NULL,
  endpoint_id uuid NOT NULL,
  event_id uuid NOT NULL,
  event_type text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'delivering', 'delivered', 'uncertain', 'dead_lettered')),
  attempts integer NOT NULL CHECK (attempts >= 0),
  next_attempt_at bigint,
  lease_until bigint,
  claim_token text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (partner_id, id),
  FOREIGN KEY (partner_id, event_id) REFERENCES webhook_events (partner_id, id),
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
  CHECK ((status = 'delivering') = (lease_until IS NOT NULL AND claim_token IS NOT NULL))
);

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';

CREATE INDEX webhook_deliveries_leases ON webhook_deliveries (lease_until) WHERE status = 'delivering';

CREATE INDEX webhook_deliveries_newest ON webhook_deliveries (partner_id, created_at DESC, id DESC);

CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (partner_id, endpoint_id);

CREATE TABLE webhook_attempts (
  partner_id text NOT NULL,
  delivery_id uuid NOT NULL,
  n integer GENERATED ALWAYS AS IDENTITY,
  attempt integer NOT NULL,
  started_at bigint NOT NULL,
  duration_ms bigint NOT NULL,
  response_status integer,
  error text,
  PRIMARY KEY (partner_id, delivery_id, n)
);

CREATE TABLE webhook_low_balance_marks (
  partner_id text PRIMARY KEY,
  emitted_at bigint NOT NULL
);

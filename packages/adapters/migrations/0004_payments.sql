-- Top-up payments, and the sandbox acquirer's own records (an outside system in production terms,
-- kept apart so it only talks to the engine through notifications). The Idempotency-Key is unique per
-- partner; notifications name a payment by id alone, hence the index on id.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

CREATE TABLE payments (
  partner_id text NOT NULL,
  id uuid NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  amount_rub integer NOT NULL CHECK (amount_rub BETWEEN 1 AND 100000),
  description text CHECK (char_length(description) <= 140),
  idempotency_key text NOT NULL CHECK (char_length(idempotency_key) BETWEEN 1 AND 128),
  status text NOT NULL CHECK (status IN ('pending', 'authorized', 'confirmed', 'canceled', 'rejected', 'failed')),
  provider_payment_id text,
  payment_url text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (partner_id, id),
  UNIQUE (partner_id, idempotency_key)
);

CREATE INDEX payments_newest ON payments (partner_id, seq DESC);

CREATE INDEX payments_by_id ON payments (id);

CREATE TABLE sandbox_acquirer_payments (
  partner_id text NOT NULL,
  order_id uuid NOT NULL,
  id text NOT NULL,
  amount_rub integer NOT NULL,
  description text,
  status text NOT NULL CHECK (status IN ('pending', 'authorized', 'confirmed', 'canceled', 'rejected', 'failed')),
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (partner_id, order_id)
);

CREATE INDEX sandbox_acquirer_payments_by_order ON sandbox_acquirer_payments (order_id);

-- Ledger tables. Every key and index leads with partner_id, so the schema can be distributed by
-- partner. Times are epoch milliseconds from Effect's Clock, never SQL now().
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

CREATE TABLE ledger_accounts (
  partner_id text PRIMARY KEY,
  total_minor bigint NOT NULL DEFAULT 0,
  used_minor bigint NOT NULL DEFAULT 0,
  reserved_minor bigint NOT NULL DEFAULT 0,
  assigned_plan text NOT NULL DEFAULT 'base' CHECK (assigned_plan IN ('base', 'pro', 'max', 'ultra')),
  CONSTRAINT ledger_accounts_used_nonnegative CHECK (used_minor >= 0),
  CONSTRAINT ledger_accounts_reserved_nonnegative CHECK (reserved_minor >= 0),
  -- The backstop of every reservation: available never drops below zero.
  CONSTRAINT ledger_accounts_available_nonnegative CHECK (total_minor - used_minor - reserved_minor >= 0)
);

CREATE TABLE ledger_entries (
  partner_id text NOT NULL,
  id uuid NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  type text NOT NULL CHECK (type IN ('topup', 'reservation', 'confirm', 'refund', 'debit', 'bonus_reversal')),
  kind text NOT NULL CHECK (kind IN ('topup', 'bonus', 'adjustment', 'bonus_reversal', 'task_hold', 'task_charge',
    'task_release', 'task_refund', 'spend_refund', 'legacy_debit')),
  amount_minor bigint NOT NULL CHECK (amount_minor <> 0 OR type = 'confirm'),
  unit_price_micros bigint,
  task_id text,
  attribution text CHECK (attribution IN ('company', 'personal')),
  reference text,
  label text NOT NULL,
  description text NOT NULL,
  occurred_at bigint NOT NULL,
  PRIMARY KEY (partner_id, id)
);

CREATE UNIQUE INDEX ledger_entries_reference ON ledger_entries (partner_id, reference) WHERE reference IS NOT NULL;

CREATE INDEX ledger_entries_newest ON ledger_entries (partner_id, occurred_at DESC, seq DESC);

CREATE TABLE ledger_holds (
  partner_id text NOT NULL,
  task_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('open', 'confirmed', 'refunded')),
  reserved_minor bigint NOT NULL CHECK (reserved_minor > 0),
  charged_minor bigint NOT NULL DEFAULT 0 CHECK (charged_minor >= 0),
  released_minor bigint NOT NULL DEFAULT 0 CHECK (released_minor >= 0),
  reservation_entry_id uuid NOT NULL,
  settlement_entry_id uuid,
  created_at bigint NOT NULL,
  settled_at bigint,
  PRIMARY KEY (partner_id, task_id),
  CHECK (status = 'open' OR charged_minor + released_minor = reserved_minor)
);

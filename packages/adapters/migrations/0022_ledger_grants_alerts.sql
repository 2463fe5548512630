-- Expiring bonus credit (grants) and balance alerts (issue 32). A grant is a bonus credited with a
-- priority and usually an expiry; holds record what they drew from grants, so a settlement gives
-- it back to the same grants. An alert is a partner's threshold on the available balance.
-- Times are epoch milliseconds from Effect's Clock.

ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;

ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN ('topup', 'bonus', 'adjustment',
  'bonus_reversal', 'bonus_expired', 'task_hold', 'task_charge', 'task_release', 'task_refund', 'spend_refund',
  'legacy_debit'));

-- What the reservation took from each grant, in draw order: [{"grantId": …, "amountMinor": …}].
ALTER TABLE ledger_holds ADD COLUMN grant_draws jsonb NOT NULL DEFAULT '[]';

CREATE TABLE ledger_credit_grants (
  partner_id text NOT NULL,
  -- The id of the bonus entry that credited it.
  id uuid NOT NULL,
  granted_minor bigint NOT NULL CHECK (granted_minor > 0),
  -- Neither spent nor expired; includes what open holds took (reserved_minor).
  remaining_minor bigint NOT NULL,
  reserved_minor bigint NOT NULL DEFAULT 0,
  priority integer NOT NULL CHECK (priority BETWEEN 0 AND 100),
  expires_at bigint,
  created_at bigint NOT NULL,
  expired_at bigint,
  PRIMARY KEY (partner_id, id),
  CONSTRAINT ledger_credit_grants_amounts CHECK (reserved_minor >= 0 AND reserved_minor <= remaining_minor
    AND remaining_minor <= granted_minor),
  -- An expired grant keeps only what its open holds took.
  CONSTRAINT ledger_credit_grants_expired CHECK (expired_at IS NULL OR remaining_minor = reserved_minor)
);

-- What every movement loads with the account lock: the grants with money left.
CREATE INDEX ledger_credit_grants_live ON ledger_credit_grants (partner_id, created_at) WHERE remaining_minor > 0;

-- The expiry sweep reads due grants of every partner, soonest first.
CREATE INDEX ledger_credit_grants_due ON ledger_credit_grants (expires_at)
  WHERE expired_at IS NULL AND expires_at IS NOT NULL AND remaining_minor > 0;

CREATE TABLE ledger_balance_alerts (
  partner_id text NOT NULL,
  id uuid NOT NULL,
  threshold_minor bigint NOT NULL CHECK (threshold_minor BETWEEN 100 AND 1000000000),
  state text NOT NULL CHECK (state IN ('ok', 'triggered')),
  -- State changes so far; numbers the alert's events.
  crossings integer NOT NULL DEFAULT 0,
  created_at bigint NOT NULL,
  PRIMARY KEY (partner_id, id)
)

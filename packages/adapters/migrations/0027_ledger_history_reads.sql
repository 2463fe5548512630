-- Reads whose cost does not grow with a partner's history (issue 36). Each entry gets its place
-- in the partner's ledger (`account_seq`, 1, 2, 3, … in newest-first order reversed) and in the
-- partner's rows of its type (`type_seq`); the account row keeps how many entries of each type
-- exist and when the newest happened; `ledger_usage_days` keeps daily usage per UTC day. All are
-- written by the movement under the account lock (SqlLedgerStore.ts), so page N of a list is a
-- range seek, its total a column, and a usage chart a read of at most 366 rows.
--
-- Existing rows are numbered here, one partner at a time in batches of 10,000 rows in
-- (occurred_at, seq) order, so every statement's work and memory stay bounded however long a
-- ledger is. It runs inside the migration's transaction (docs/decisions.md says why).
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

ALTER TABLE ledger_accounts
  ADD COLUMN entry_count bigint NOT NULL DEFAULT 0,
  ADD COLUMN topup_count bigint NOT NULL DEFAULT 0,
  ADD COLUMN reservation_count bigint NOT NULL DEFAULT 0,
  ADD COLUMN confirm_count bigint NOT NULL DEFAULT 0,
  ADD COLUMN refund_count bigint NOT NULL DEFAULT 0,
  ADD COLUMN debit_count bigint NOT NULL DEFAULT 0,
  ADD COLUMN bonus_reversal_count bigint NOT NULL DEFAULT 0,
  -- The newest entry's occurred_at: a movement never writes an earlier one, so account_seq order
  -- and (occurred_at, seq) order agree and a date range is a range of account_seq.
  ADD COLUMN last_entry_at bigint;

ALTER TABLE ledger_entries
  ADD COLUMN account_seq bigint,
  ADD COLUMN type_seq bigint;

CREATE TABLE ledger_usage_days (
  partner_id text NOT NULL,
  day_start_ms bigint NOT NULL,
  spent_minor bigint NOT NULL,
  PRIMARY KEY (partner_id, day_start_ms)
);

-- Every partner with entries has an account row (a movement creates it); this only guards
-- databases edited by hand.
INSERT INTO ledger_accounts (partner_id)
SELECT DISTINCT partner_id FROM ledger_entries
ON CONFLICT (partner_id) DO NOTHING;

DO $$
DECLARE
  account text;
  after_at bigint;
  after_seq bigint;
  moved bigint;
BEGIN
  FOR account IN SELECT partner_id FROM ledger_accounts ORDER BY partner_id LOOP
    -- Below every key, so the first batch's condition is the same index range as the others'.
    after_at := -9223372036854775808;
    after_seq := -9223372036854775808;
    LOOP
      WITH page AS (
        SELECT id, type, amount_minor, task_id, occurred_at, seq FROM ledger_entries
        WHERE partner_id = account AND (occurred_at, seq) > (after_at, after_seq)
        ORDER BY occurred_at, seq
        LIMIT 10000
      ), numbered AS (
        SELECT page.*,
          a.entry_count + row_number() OVER (ORDER BY page.occurred_at, page.seq) AS new_account_seq,
          CASE page.type
            WHEN 'topup' THEN a.topup_count WHEN 'reservation' THEN a.reservation_count
            WHEN 'confirm' THEN a.confirm_count WHEN 'refund' THEN a.refund_count
            WHEN 'debit' THEN a.debit_count ELSE a.bonus_reversal_count
          END + row_number() OVER (PARTITION BY page.type ORDER BY page.occurred_at, page.seq) AS new_type_seq
        FROM page JOIN ledger_accounts a ON a.partner_id = account
      ), numbered_rows AS (
        UPDATE ledger_entries e SET account_seq = n.new_account_seq, type_seq = n.new_type_seq
        FROM numbered n WHERE e.partner_id = account AND e.id = n.id
      ), usage_rows AS (
        INSERT INTO ledger_usage_days (partner_id, day_start_ms, spent_minor)
        SELECT account, (floor(occurred_at / 86400000.0) * 86400000)::bigint,
          sum(CASE WHEN type = 'confirm' THEN amount_minor ELSE -amount_minor END)
        FROM numbered WHERE type = 'confirm' OR (type = 'refund' AND task_id IS NULL)
        GROUP BY 2
        ON CONFLICT (partner_id, day_start_ms) DO UPDATE SET spent_minor = ledger_usage_days.spent_minor + EXCLUDED.spent_minor
      ), last_row AS (
        SELECT occurred_at, seq FROM numbered ORDER BY new_account_seq DESC LIMIT 1
      )
      UPDATE ledger_accounts SET
        entry_count = entry_count + (SELECT count(*) FROM numbered),
        topup_count = topup_count + (SELECT count(*) FROM numbered WHERE type = 'topup'),
        reservation_count = reservation_count + (SELECT count(*) FROM numbered WHERE type = 'reservation'),
        confirm_count = confirm_count + (SELECT count(*) FROM numbered WHERE type = 'confirm'),
        refund_count = refund_count + (SELECT count(*) FROM numbered WHERE type = 'refund'),
        debit_count = debit_count + (SELECT count(*) FROM numbered WHERE type = 'debit'),
        bonus_reversal_count = bonus_reversal_count + (SELECT count(*) FROM numbered WHERE type = 'bonus_reversal'),
        last_entry_at = coalesce((SELECT occurred_at FROM last_row), last_entry_at)
      WHERE partner_id = account
      RETURNING (SELECT occurred_at FROM last_row), (SELECT seq FROM last_row), (SELECT count(*) FROM numbered)
      INTO after_at, after_seq, moved;
      EXIT WHEN moved < 10000;
    END LOOP;
  END LOOP;
END $$;

ALTER TABLE ledger_entries
  ALTER COLUMN account_seq SET NOT NULL,
  ALTER COLUMN type_seq SET NOT NULL;

-- Page N of the whole list, and of a date range once its bounds are found.
CREATE UNIQUE INDEX ledger_entries_by_account_seq ON ledger_entries (partner_id, account_seq);

-- Page N of one type.
CREATE UNIQUE INDEX ledger_entries_by_type_seq ON ledger_entries (partner_id, type, type_seq);

-- The attribution filter selects top-ups: its count and pages read attributed rows only.
CREATE INDEX ledger_entries_attributed ON ledger_entries (partner_id, attribution, account_seq)
  WHERE attribution IS NOT NULL;

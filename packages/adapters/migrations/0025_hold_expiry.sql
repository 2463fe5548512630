-- Hold expiry: every hold and every task carries the instant it lapses (epoch ms). The task expiry
-- sweep fails a task still queued or running then and refunds its hold with a `task_hold_expired`
-- row; a provider report arriving afterwards is kept on the task (`late_report`, JSON) and settles
-- nothing. Holds and tasks made before this migration get a day from their creation, the default.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

ALTER TABLE ledger_holds ADD COLUMN expires_at bigint;

UPDATE ledger_holds SET expires_at = created_at + 86400000;

ALTER TABLE ledger_holds ALTER COLUMN expires_at SET NOT NULL;

ALTER TABLE ledger_holds ADD CONSTRAINT ledger_holds_expires_after_creation CHECK (expires_at > created_at);

ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;

ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check CHECK (kind IN ('topup', 'bonus', 'adjustment',
  'bonus_reversal', 'bonus_expired', 'task_hold', 'task_charge', 'task_release', 'task_refund', 'task_hold_expired',
  'spend_refund',
  'legacy_debit'));

ALTER TABLE tasks ADD COLUMN expires_at bigint;

UPDATE tasks SET expires_at = created_at + 86400000;

ALTER TABLE tasks ALTER COLUMN expires_at SET NOT NULL;

ALTER TABLE tasks ADD COLUMN late_report text;

-- The sweep's query: unfinished tasks by expiry, oldest first.
CREATE INDEX tasks_expiring ON tasks (expires_at) WHERE status IN ('queued', 'running');

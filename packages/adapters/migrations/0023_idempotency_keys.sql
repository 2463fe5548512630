-- Idempotency-Key on every change (docs/decisions.md, "Idempotency keys"): the first answer to each
-- key, stored in the transaction of the change it answers. `scope` is whose key it is
-- (`partner:<id>`, or `admin:<digest of the admin token>`), so one partner's keys never meet
-- another's; `fingerprint` is the SHA-256 of the method, path and canonical body, which a retry must
-- match. A request holds its key with a transaction-scoped advisory lock while it runs (no row
-- until the commit), so a concurrent retry is told "in progress" instead of waiting.
-- Retention deletes rows older than 24 hours in batches, oldest first, through idempotency_keys_by_age.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

CREATE TABLE idempotency_keys (
  scope text NOT NULL,
  key text NOT NULL,
  fingerprint text NOT NULL,
  status integer NOT NULL,
  body text NOT NULL,
  content_type text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (scope, key)
);

CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);

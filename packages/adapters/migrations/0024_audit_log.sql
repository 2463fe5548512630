-- The partners' audit log: one row per change (keys, sessions, endpoints, invoices, admin actions),
-- written in the change's own transaction. `changes` names the fields a change set, never their
-- values. Pages are newest first by (at, id) with a keyset cursor, so the page index leads with
-- the partner and carries both; the action filter has its own. Retention deletes by age across
-- partners in bounded batches (audit_log_expiry).
CREATE TABLE audit_log (
  partner_id text NOT NULL,
  id uuid NOT NULL,
  at bigint NOT NULL,
  actor_type text NOT NULL CHECK (actor_type IN ('api_key', 'session', 'admin', 'system')),
  actor_id text,
  actor_label text,
  action text NOT NULL,
  target_type text NOT NULL,
  target_id text NOT NULL,
  request_id text,
  ip text,
  idempotency_key text,
  changes text[] NOT NULL,
  PRIMARY KEY (partner_id, id)
);
CREATE INDEX audit_log_newest ON audit_log (partner_id, at DESC, id DESC);
CREATE INDEX audit_log_action_newest ON audit_log (partner_id, action, at DESC, id DESC);
CREATE INDEX audit_log_expiry ON audit_log (at);

-- Generation tasks and the output bytes kept for them. The idempotency key is unique per partner
-- (NULLs are distinct). CHECKs tie the status to what it implies, so a half-written terminal state
-- cannot exist. Lookup by id serves admin controls; unfinished tasks are handed to the provider again
-- at start.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

CREATE TABLE tasks (
  partner_id text NOT NULL,
  id uuid NOT NULL,
  status text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  model_id text NOT NULL,
  family text NOT NULL,
  operation text NOT NULL,
  mode text NOT NULL,
  resolution text,
  quality text,
  request text NOT NULL,
  inputs text NOT NULL,
  reserved_minor bigint NOT NULL CHECK (reserved_minor >= 0),
  cost_minor bigint CHECK (cost_minor >= 0 AND cost_minor <= reserved_minor),
  idempotency_key text CHECK (char_length(idempotency_key) BETWEEN 1 AND 128),
  result_url text,
  result_mime_type text,
  result_size_bytes bigint CHECK (result_size_bytes >= 0),
  result_text text,
  failure_code text,
  failure_message text,
  created_at bigint NOT NULL,
  started_at bigint,
  finished_at bigint,
  PRIMARY KEY (partner_id, id),
  UNIQUE (partner_id, idempotency_key),
  CHECK ((status = 'succeeded') = (cost_minor IS NOT NULL AND result_url IS NOT NULL AND result_mime_type IS NOT NULL)),
  CHECK ((status = 'failed') = (failure_code IS NOT NULL)),
  CHECK ((status IN ('succeeded', 'failed')) = (finished_at IS NOT NULL))
);

CREATE INDEX tasks_newest ON tasks (partner_id, created_at DESC, id DESC);

CREATE INDEX tasks_by_id ON tasks (id);

CREATE INDEX tasks_unfinished ON tasks (created_at) WHERE status IN ('queued', 'running');

CREATE TABLE task_results (
  partner_id text NOT NULL,
  task_id uuid NOT NULL,
  mime_type text NOT NULL,
  content bytea NOT NULL,
  PRIMARY KEY (partner_id, task_id),
  FOREIGN KEY (partner_id, task_id) REFERENCES tasks (partner_id, id)
);

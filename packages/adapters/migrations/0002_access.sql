-- Partners, API keys, cabinet sessions and rate-limit counters. The hashes of API keys and session
-- tokens are unique on their own: they are how the partner is found. Rate-limit counters belong to no
-- partner (per-IP limits) and are kept for one window only.
--
-- Frozen: databases have applied this text as it is. Never edit it; change the schema in a new
-- file (README.md in this folder).

CREATE TABLE partners (
  id text PRIMARY KEY,
  name text NOT NULL,
  created_at bigint NOT NULL
);

CREATE TABLE api_keys (
  partner_id text NOT NULL,
  id uuid NOT NULL,
  kind text NOT NULL CHECK (kind IN ('live', 'legacy')),
  key_hash text NOT NULL,
  prefix text NOT NULL,
  label text,
  access text NOT NULL CHECK (access IN ('full', 'restricted')),
  scopes text NOT NULL DEFAULT '',
  created_at bigint NOT NULL,
  last_used_at bigint,
  expires_at bigint,
  revoked_at bigint,
  revoke_reason text,
  PRIMARY KEY (partner_id, id)
);

CREATE UNIQUE INDEX api_keys_hash ON api_keys (key_hash);

CREATE TABLE sessions (
  partner_id text NOT NULL,
  id uuid NOT NULL,
  token_hash text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (partner_id, id)
);

CREATE UNIQUE INDEX sessions_hash ON sessions (token_hash);

CREATE TABLE rate_limit_counters (
  key text NOT NULL,
  window_start bigint NOT NULL,
  window_end bigint NOT NULL,
  count integer NOT NULL,
  limit_count integer NOT NULL,
  PRIMARY KEY (key, window_start)
);

CREATE INDEX rate_limit_counters_end ON rate_limit_counters (window_end);

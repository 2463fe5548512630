/**
 * Partners, API keys, cabinet sessions and rate-limit counters.
 *
 * Two lookups cannot lead with partner_id because the partner is what they find out: the keyed
 * hash of an API key and of a session token. They are unique on their own; when the schema is
 * distributed by partner, these two indexes become small reference tables (hash → partner).
 * Rate-limit counters belong to no partner (per-IP limits) and are kept for one window only.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE partners (
      id text PRIMARY KEY,
      name text NOT NULL,
      created_at bigint NOT NULL
    )`
  yield* sql`
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
    )`
  yield* sql`CREATE UNIQUE INDEX api_keys_hash ON api_keys (key_hash)`
  yield* sql`
    CREATE TABLE sessions (
      partner_id text NOT NULL,
      id uuid NOT NULL,
      token_hash text NOT NULL,
      created_at bigint NOT NULL,
      expires_at bigint NOT NULL,
      PRIMARY KEY (partner_id, id)
    )`
  yield* sql`CREATE UNIQUE INDEX sessions_hash ON sessions (token_hash)`
  yield* sql`
    CREATE TABLE rate_limit_counters (
      key text NOT NULL,
      window_start bigint NOT NULL,
      window_end bigint NOT NULL,
      count integer NOT NULL,
      limit_count integer NOT NULL,
      PRIMARY KEY (key, window_start)
    )`
  yield* sql`CREATE INDEX rate_limit_counters_end ON rate_limit_counters (window_end)`
})

/**
 * Generation tasks and the output bytes the engine keeps for them. Keys lead with partner_id
 * (ARCHITECTURE §3).
 *
 * - The idempotency key is unique per partner (NULLs are distinct, so launches without a key never
 *   collide): a retried launch conflicts on it and finds the first task instead of reserving again.
 * - The launch request and inputs are `text` holding JSON: they are shown back as stored and
 *   compared for idempotency, never queried inside.
 * - CHECKs tie the status to what it implies (a cost and a result on success, a reason on
 *   failure), so a half-written terminal state cannot exist.
 * - Two indexes serve operators and restarts across partners: lookup by id (admin sandbox
 *   controls) and unfinished tasks (handed to the provider again at start).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
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
    )`
  yield* sql`CREATE INDEX tasks_newest ON tasks (partner_id, created_at DESC, id DESC)`
  yield* sql`CREATE INDEX tasks_by_id ON tasks (id)`
  yield* sql`CREATE INDEX tasks_unfinished ON tasks (created_at) WHERE status IN ('queued', 'running')`
  yield* sql`
    CREATE TABLE task_results (
      partner_id text NOT NULL,
      task_id uuid NOT NULL,
      mime_type text NOT NULL,
      content bytea NOT NULL,
      PRIMARY KEY (partner_id, task_id),
      FOREIGN KEY (partner_id, task_id) REFERENCES tasks (partner_id, id)
    )`
})

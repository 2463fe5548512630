/**
 * A deletion's unfinished part. Deleting an endpoint on its own (not inside a caller's
 * transaction) takes two steps: it commits the deletion first — from then on the endpoint is
 * gone for the partner, fan-outs leave it out, nothing claims its deliveries — and then, once the
 * writers that saw it live have committed, removes its pending deliveries (SqlWebhookStore,
 * `deleteEndpoint`). `purge_pending` marks every endpoint between the two steps, so that a host
 * that stopped in between (a crash, a deploy), or a purge that failed, leaves work the worker's
 * sweep finishes, instead of
 * pending deliveries of a deleted endpoint that nothing would ever claim or remove.
 *
 * The partial index holds only endpoints between the two steps (none, nearly always), so the
 * sweep's check reads nothing.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhook_endpoints ADD COLUMN purge_pending boolean NOT NULL DEFAULT false`
  yield* sql`CREATE INDEX webhook_endpoints_purges ON webhook_endpoints (deleted_at) WHERE purge_pending`
})

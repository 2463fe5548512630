/**
 * An endpoint's pending deliveries are found without reading its history.
 *
 * Why: reactivating a paused endpoint (it flags its pending deliveries back into the due index,
 * migration 0011) and deleting one (it removes its pending deliveries) selected them by
 * `(partner_id, endpoint_id)` and `status = 'pending'`, which only `webhook_deliveries_by_endpoint`
 * (every delivery the endpoint ever had) or a scan of the table could answer, growing with the
 * history. A partial index of pending deliveries by endpoint holds only what waits: EXPLAIN
 * ANALYZE by hand, 1,000,000 past deliveries of the endpoint and 100 pending, the reactivation
 * 83 → 2.9 ms and the deletion's removal 87 → 0.2 ms (both were sequential scans). Its price is one more index entry per delivery made pending (a fan-out,
 * a retry, a replay): pgbench of the fan-out statement, four interleaved pairs, 1,511 against
 * 1,530 statements/s without it, within the runs' noise.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX webhook_deliveries_pending_by_endpoint ON webhook_deliveries (partner_id, endpoint_id) WHERE status = 'pending'`
})

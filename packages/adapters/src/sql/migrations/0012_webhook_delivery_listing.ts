/**
 * The delivery listing's order moves to an insert-only table, off the worker's hot path.
 *
 * Why: a delivery row is updated twice per attempt (the claim, the outcome), and neither update
 * can be HOT: each changes a column of the due or lease index. A non-HOT update adds an entry to
 * every index of the table, so the two listing indexes of migration 0003 — newest first per
 * partner, and by endpoint — grew by two entries per attempt that no listing needed: the listing
 * order (`created_at`, `id`) and the endpoint never change. Postgres spent 14–16 % of its CPU
 * per claim-and-outcome cycle on them (interleaved A/B of the two statements, 30-row batches),
 * and the claim's wall time, which paces the worker, fell by 11–13 % without them
 * (docs/performance.md).
 *
 * Now:
 * - `webhook_delivery_listing` holds one row per delivery, written with it at fan-out and removed
 *   with it (a purge of pending deliveries), never updated; its two indexes serve the listing, newest
 *   first, with or without an endpoint filter. The listing joins the delivery by primary key.
 * - On the deliveries, only pending rows stay indexed by endpoint (what the purge and the pause
 *   look for); a claimed or finished version of a row adds nothing to that index.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE webhook_delivery_listing (
      partner_id text NOT NULL,
      created_at bigint NOT NULL,
      id uuid NOT NULL,
      endpoint_id uuid NOT NULL,
      PRIMARY KEY (partner_id, created_at, id)
    )`
  yield* sql`CREATE INDEX webhook_delivery_listing_by_endpoint ON webhook_delivery_listing (partner_id, endpoint_id, created_at, id)`
  yield* sql`INSERT INTO webhook_delivery_listing (partner_id, created_at, id, endpoint_id)
    SELECT partner_id, created_at, id, endpoint_id FROM webhook_deliveries`
  yield* sql`DROP INDEX webhook_deliveries_newest`
  yield* sql`DROP INDEX webhook_deliveries_by_endpoint`
  yield* sql`CREATE INDEX webhook_deliveries_pending_by_endpoint ON webhook_deliveries (partner_id, endpoint_id) WHERE status = 'pending'`
})

/**
 * A paused endpoint's backlog out of the claim's way.
 *
 * The claim walks the partial due index oldest first and checks each candidate's endpoint. A
 * paused endpoint's pending deliveries are the oldest entries there (they stopped being claimed),
 * so every claim stepped over all of them: with 20,000 waiting behind one paused endpoint a
 * 64-row claim took 18.2 ms instead of 1.9 (9.4×, bench/webhooks-paused.ts). Pausing is what partners
 * do during an outage of their receiver, exactly when backlogs are large, and it slowed delivery
 * for every partner.
 *
 * `endpoint_paused` copies the endpoint's state onto its pending deliveries (set and cleared by
 * the pause and the reactivation, in the same transaction) and the due index leaves them out.
 * The claim keeps checking the endpoint: a retry recorded just after a pause can still enter the
 * index unflagged, and is skipped as before (at most the attempts then in flight).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { claimDueFunction } from "./0008_webhook_worker_functions.js"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhook_deliveries ADD COLUMN endpoint_paused boolean NOT NULL DEFAULT false`
  yield* sql`UPDATE webhook_deliveries d SET endpoint_paused = true FROM webhook_endpoints e
    WHERE d.status = 'pending' AND e.partner_id = d.partner_id AND e.id = d.endpoint_id AND NOT e.active`
  yield* sql`DROP INDEX webhook_deliveries_due`
  yield* sql`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending' AND NOT endpoint_paused`
  // The claim of migration 0008 with the index's condition, so its generic plan can use it.
  yield* sql`DROP FUNCTION webhook_claim_due(bigint, bigint, integer, text)`
  yield* sql.unsafe(claimDueFunction("d.status = 'pending' AND NOT d.endpoint_paused"))
})

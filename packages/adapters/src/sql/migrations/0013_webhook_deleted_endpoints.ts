/**
 * A partner's deleted endpoints cost nothing to the statements that run per event and per claim.
 *
 * Why: a deletion is soft (the row keeps the delivery history's endpoint), so endpoints pile up
 * for a partner whose automation registers and deletes them (a test suite, say), while only ten
 * are ever live. Two statements read a partner's endpoints by `partner_id` alone:
 * - The claim (migration 0012) joined each claimed delivery to its event and its endpoint, and
 *   the planner, taking `partner_id` through the event's row (one equivalence class with the
 *   claimed row's and the endpoint's), looked endpoints up by `partner_id` alone and matched the
 *   id in a join filter: every endpoint of the partner, deleted ones included, for every claimed
 *   row. With 5,000 deleted endpoints a 30-row claim of that partner's deliveries took 38 ms
 *   instead of about 1.3 (EXPLAIN ANALYZE; 128,070 rows removed by the join filter;
 *   bench/webhooks-deleted: 15× the time of a 64-row claim with none deleted). The claim is
 *   one loop shared by every partner, so one partner's deleted endpoints slowed everyone's
 *   deliveries. Now each claimed row reads its endpoint and its event through a LATERAL lookup
 *   by the full primary key (`LIMIT 1` keeps the planner from pulling it up into the join).
 * - An event's fan-out, the registration limit's count and the endpoint listing select a
 *   partner's live endpoints (`deleted_at IS NULL`) by `partner_id` through the primary key, which
 *   also holds the deleted ones. A partial index of live endpoints leaves those out (the
 *   fan-out 1.8–2× slower with 5,000 deleted before, as fast as with none after).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { CLAIM_DUE_COLUMNS, CLAIM_DUE_SIGNATURE, plannedOnce } from "./0008_webhook_worker_functions.js"
import { CLAIMED_0012, KEY_LOOKUPS_ONLY } from "./0012_webhook_worker_plans.js"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP FUNCTION webhook_claim_due(bigint, bigint, integer, text)`
  yield* sql.unsafe(
    plannedOnce(
      CLAIM_DUE_SIGNATURE,
      CLAIM_DUE_COLUMNS,
      // Migration 0012's candidates and update; only the lookups of the last step change.
      // Endpoints are never removed (a deletion is soft) and deliveries reference their event, so
      // every claimed row finds both.
      `${CLAIMED_0012}
      SELECT c.partner_id, c.id, c.endpoint_id, c.event_id, c.event_type, c.attempts, c.lease_until,
        ev.payload, e.url, e.secret, e.previous_secret, e.previous_secret_valid_until
      FROM claimed c
      CROSS JOIN LATERAL (
        SELECT e.url, e.secret, e.previous_secret, e.previous_secret_valid_until FROM webhook_endpoints e
        WHERE e.partner_id = c.partner_id AND e.id = c.endpoint_id LIMIT 1
      ) e
      CROSS JOIN LATERAL (
        SELECT ev.payload FROM webhook_events ev WHERE ev.partner_id = c.partner_id AND ev.id = c.event_id LIMIT 1
      ) ev`,
      KEY_LOOKUPS_ONLY
    )
  )
  yield* sql`CREATE INDEX webhook_endpoints_live ON webhook_endpoints (partner_id) WHERE deleted_at IS NULL`
})

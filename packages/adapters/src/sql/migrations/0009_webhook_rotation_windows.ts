/**
 * Endpoints holding a previous secret, for the worker's sweep that wipes it once its rotation
 * window ends (spec "Secret rotation") and for the worker's next wake-up time. Partial: it holds
 * only endpoints rotated within the window (plus, at most, those whose window ended since the
 * last sweep), so the sweep, which usually finds nothing, reads nothing.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX webhook_endpoints_rotation_windows ON webhook_endpoints (previous_secret_valid_until) WHERE previous_secret IS NOT NULL`
})

/**
 * Endpoints inside a secret-rotation window, for the worker's sweep that wipes the previous
 * secret once its window ends (spec "Secret rotation"). Partial: at any time only the endpoints
 * rotated in the last 6 hours are in it, so the sweep, which usually finds nothing, reads nothing.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX webhook_endpoints_rotation_windows ON webhook_endpoints (previous_secret_valid_until) WHERE previous_secret IS NOT NULL`
})

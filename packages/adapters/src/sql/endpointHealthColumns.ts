/**
 * The endpoint health columns of `webhook_endpoints` (migration 0019), as the SQL webhook store
 * reads and writes them beside the endpoint's own. The outcome write keeps them up to date in SQL
 * (`webhook_finish_attempts`); these are for the rest: listing, PATCH, the health rule's pause.
 */
import type { SqlClient } from "@effect/sql"
import type { EndpointHealth } from "@frank/core"

export const HEALTH_COLUMNS = "last_success_at, failing_since, disabled_at, disabled_reason, strikes, strikes_since"

/** The SET list that writes `health` in full. */
export const writeHealth = (sql: SqlClient.SqlClient, h: EndpointHealth) =>
  sql`last_success_at = ${h.lastSuccessAt}, failing_since = ${h.failingSince}, disabled_at = ${h.disabledAt},
  disabled_reason = ${h.disabledReason}, strikes = ${h.strikes}, strikes_since = ${h.strikesSince}`

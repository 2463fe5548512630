/**
 * The SQL client of a Frank deployment on a PostgreSQL server (`DATABASE_URL`). Embedded PGlite,
 * the default, is in PgliteDatabase.ts; both speak the Postgres wire protocol to @effect/sql-pg,
 * so one set of SQL stores and one schema serve both.
 */
import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import type { Layer, Redacted } from "effect"
import { clientOptions } from "./clientOptions.js"

export interface PostgresOptions {
  /** Size of the connection pool; 10 when omitted. */
  readonly maxConnections?: number | undefined
}

export const postgresLayer = (
  url: Redacted.Redacted<string>,
  options: PostgresOptions = {}
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, SqlError> =>
  PgClient.layer({ url, maxConnections: options.maxConnections ?? 10, applicationName: "frank", ...clientOptions })

/**
 * The SQL client of a Frank deployment on a PostgreSQL server (`DATABASE_URL`). Embedded PGlite,
 * the default, is in PgliteDatabase.ts; both speak the Postgres wire protocol to @effect/sql-pg,
 * so one set of SQL stores and one schema serve both.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Layer, Redacted } from "effect"
import { clientOptions } from "./clientOptions.js"
import * as DatabaseSchema from "./DatabaseSchema.js"

export interface PostgresOptions {
  /** Size of the connection pool; 10 when omitted. */
  readonly maxConnections?: number | undefined
  /**
   * The schema that holds Frank's objects (DatabaseSchema.ts), `frank` when omitted: every
   * connection gets it as its only search_path, overriding one the URL's `options` may set.
   */
  readonly schema?: string | undefined
}

/** A pooled client for the PostgreSQL server at `url`, its connections inside the schema, which it provides too. */
export const layer = (
  url: Redacted.Redacted<string>,
  options: PostgresOptions = {}
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | DatabaseSchema.DatabaseSchema, SqlError> =>
  Layer.unwrapEffect(
    Effect.map(DatabaseSchema.check(options.schema ?? DatabaseSchema.DEFAULT_SCHEMA), (schema) =>
      PgClient.layer({
        url: Redacted.make(DatabaseSchema.withSearchPath(Redacted.value(url), schema)),
        maxConnections: options.maxConnections ?? 10,
        applicationName: "frank",
        ...clientOptions
      }).pipe(Layer.merge(DatabaseSchema.layer(schema)))
    )
  )

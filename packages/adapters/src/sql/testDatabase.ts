/**
 * Fresh, migrated databases for tests and benchmarks.
 *
 * - PGlite: a new in-memory instance per layer.
 * - PostgreSQL: a uniquely named schema in the database `url` names, created when the layer is
 *   built and dropped (CASCADE) when it is released. Every connection of the pool gets it as its
 *   search_path through the startup `options` parameter, so the stores' unqualified table names
 *   (and the migrations table) resolve inside it. Test files can therefore run in parallel
 *   against one database, and it needs only CREATE on that database, not CREATEDB.
 *
 * Each call builds a new database; build the layer once per test file (or suite).
 */
import { randomUUID } from "node:crypto"
import type { SqlClient } from "@effect/sql"
import type { MigrationError } from "@effect/sql/Migrator"
import { SqlError } from "@effect/sql/SqlError"
import type { PgClient } from "@effect/sql-pg"
import type { LedgerStore } from "@frank/core"
import { Effect, Layer, Redacted } from "effect"
import pg from "pg"
import { postgresLayer } from "./Database.js"
import { MigrationsLayer } from "./migrations.js"
import { pgliteLayer } from "./PgliteDatabase.js"
import { SqlLedgerStore } from "./SqlLedgerStore.js"

export type TestDatabase = PgClient.PgClient | SqlClient.SqlClient
export type TestDatabaseError = SqlError | MigrationError

export interface TestDatabaseOptions {
  /** Pool size on PostgreSQL (10 when omitted); concurrency tests want real parallel transactions. */
  readonly maxConnections?: number | undefined
}

export const pgliteTestDatabase = (): Layer.Layer<TestDatabase, TestDatabaseError> =>
  MigrationsLayer.pipe(Layer.provideMerge(pgliteLayer()))

/** Runs one statement on a short-lived connection of its own (schema DDL outside the pool). */
const adminStatement = (url: string, text: string) =>
  Effect.acquireUseRelease(
    Effect.tryPromise({
      try: async () => {
        const client = new pg.Client({ connectionString: url })
        await client.connect()
        return client
      },
      catch: (cause) => new SqlError({ message: "test database: cannot connect", cause })
    }),
    (client) =>
      Effect.tryPromise({
        try: () => client.query(text),
        catch: (cause) => new SqlError({ message: `test database: ${text} failed`, cause })
      }),
    (client) => Effect.promise(() => client.end()).pipe(Effect.ignore)
  )

/** `url` with the session's search_path set to `schema` (kept after any `options` already there). */
export const withSearchPath = (url: string, schema: string): string => {
  const target = new URL(url)
  const existing = target.searchParams.get("options")
  target.searchParams.set("options", `${existing === null ? "" : `${existing} `}-c search_path=${schema}`)
  return target.toString()
}

export const postgresTestDatabase = (
  url: string,
  options: TestDatabaseOptions = {}
): Layer.Layer<TestDatabase, TestDatabaseError> =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      // Lower-case letters, digits and underscores only: safe to splice into DDL unquoted.
      const schema = `frank_t_${randomUUID().replaceAll("-", "")}`
      yield* Effect.acquireRelease(adminStatement(url, `CREATE SCHEMA ${schema}`), () =>
        adminStatement(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`).pipe(Effect.ignore)
      )
      return MigrationsLayer.pipe(
        Layer.provideMerge(postgresLayer(Redacted.make(withSearchPath(url, schema)), options))
      )
    })
  )

/** A clean, migrated PGlite database with the SQL ledger store on it. */
export const makePgliteTestLayer = (): Layer.Layer<TestDatabase | LedgerStore, TestDatabaseError> =>
  SqlLedgerStore.pipe(Layer.provideMerge(pgliteTestDatabase()))

/** A clean, migrated schema on the PostgreSQL server of `url` with the SQL ledger store on it. */
export const makePostgresTestLayer = (
  url: string,
  options: TestDatabaseOptions = {}
): Layer.Layer<TestDatabase | LedgerStore, TestDatabaseError> =>
  SqlLedgerStore.pipe(Layer.provideMerge(postgresTestDatabase(url, options)))

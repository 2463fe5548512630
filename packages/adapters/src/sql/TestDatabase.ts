/**
 * Fresh, migrated databases for tests and benchmarks.
 *
 * - PGlite: a new in-memory instance per layer, in the schema `frank`.
 * - PostgreSQL: a uniquely named schema in the database `url` names, created when the layer is
 *   built and dropped (CASCADE) when it is released: the Frank schema of the layer's
 *   `PostgresDatabase` (its connections' search_path), so the stores' unqualified table names
 *   (and the migrations table) resolve inside it. Test files can therefore run in parallel
 *   against one database, and it needs only CREATE on that database, not CREATEDB.
 *
 * Each call builds a new database; build the layer once per test file (or suite).
 */
import { randomUUID } from "node:crypto"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { MigrationError } from "@effect/sql/Migrator"
import { SqlError } from "@effect/sql/SqlError"
import type * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Layer, Redacted } from "effect"
import pg from "pg"
import * as DatabaseSchema from "./DatabaseSchema.js"
import * as Migrations from "./migrations.js"
import * as PgliteDatabase from "./PgliteDatabase.js"
import * as PostgresDatabase from "./PostgresDatabase.js"
import * as SqlLedgerStore from "./SqlLedgerStore.js"
import type { LedgerStore } from "@frank/core/stores"

export type TestDatabase = PgClient.PgClient | SqlClient.SqlClient | DatabaseSchema.DatabaseSchema
export type TestDatabaseError = SqlError | MigrationError

export interface TestDatabaseOptions {
  /** Pool size on PostgreSQL (10 when omitted); concurrency tests want real parallel transactions. */
  readonly maxConnections?: number | undefined
}

/** A clean, migrated in-memory PGlite database. */
export const layerPglite = (): Layer.Layer<TestDatabase, TestDatabaseError> =>
  Migrations.layer.pipe(Layer.provideMerge(PgliteDatabase.layer))

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

/** `url` with the session's search_path set to `schema`: `DatabaseSchema.withSearchPath`, kept here for tests. */
export const withSearchPath = DatabaseSchema.withSearchPath

/** A clean, migrated schema of its own on the PostgreSQL server of `url`, dropped with the layer. */
export const layerPostgres = (
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
      return Migrations.layer.pipe(
        Layer.provideMerge(PostgresDatabase.layer(Redacted.make(url), { ...options, schema }))
      )
    })
  )

/** A clean, migrated PGlite database with the SQL ledger store on it. */
export const layerPgliteWithLedger = (): Layer.Layer<TestDatabase | LedgerStore, TestDatabaseError> =>
  SqlLedgerStore.layer.pipe(Layer.provideMerge(layerPglite()))

/** A clean, migrated schema on the PostgreSQL server of `url` with the SQL ledger store on it. */
export const layerPostgresWithLedger = (
  url: string,
  options: TestDatabaseOptions = {}
): Layer.Layer<TestDatabase | LedgerStore, TestDatabaseError> =>
  SqlLedgerStore.layer.pipe(Layer.provideMerge(layerPostgres(url, options)))

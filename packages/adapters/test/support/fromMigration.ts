/**
 * A migration tested on a database that earlier migrations made and filled: the schema is
 * migrated up to `before`, `seed` (SQL text) writes rows as those builds wrote them, and `check`
 * runs this build's migrations and asserts on the result. Once on PGlite, and on PostgreSQL in a
 * schema of its own when DATABASE_URL is set.
 */
import { randomUUID } from "node:crypto"
import { Migrator, SqlClient } from "@effect/sql"
import { it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { type DatabaseSchema, Migrations, PgliteDatabase, PostgresDatabase } from "../../src/index.js"
import { runScript } from "./scratchDatabase.js"

/** The migrations up to and including `latest`, applied to the database in context. */
export const upTo = (latest: number) =>
  Migrator.make({})({
    loader: Effect.map(Migrations.loader, (all) => all.filter(([id]) => id <= latest)),
    table: "effect_sql_migrations"
  })

export interface FromMigration {
  readonly title: string
  readonly before: number
  readonly seed: string
  readonly check: Effect.Effect<void, unknown, SqlClient.SqlClient | DatabaseSchema.DatabaseSchema>
}

/** Declares the PGlite case and, with DATABASE_URL, the PostgreSQL one. */
export const migratesFrom = ({ title, before, seed, check }: FromMigration) => {
  it.live(`PGlite: ${title}`, () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE SCHEMA IF NOT EXISTS frank`
      yield* upTo(before)
      yield* sql.unsafe(seed)
      yield* check
    }).pipe(Effect.provide(PgliteDatabase.layer), Effect.scoped)
  )
  const url = process.env.DATABASE_URL
  if (url !== undefined && url.length > 0)
    it.live(`PostgreSQL: ${title}`, () =>
      Effect.gen(function* () {
        const schema = `frank_t_${randomUUID().replaceAll("-", "")}`
        yield* Effect.addFinalizer(() => Effect.ignore(runScript(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`)))
        yield* runScript(url, `CREATE SCHEMA ${schema}`)
        const client = PostgresDatabase.layer(Redacted.make(url), { maxConnections: 1, schema })
        yield* Effect.provide(upTo(before), client)
        yield* runScript(url, `SET search_path = ${schema}; ${seed}`)
        yield* Effect.provide(check, client)
      }).pipe(Effect.scoped)
    )
}

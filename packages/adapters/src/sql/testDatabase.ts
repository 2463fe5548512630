/**
 * Fresh, migrated databases for tests and benchmarks: an in-memory PGlite, or a new database on
 * the PostgreSQL server of `url`, dropped again when the layer is released, so test files can run
 * in parallel against one server without seeing each other's rows.
 */
import type { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import pg from "pg"
import { pgliteLayer, postgresLayer } from "./Database.js"
import { MigrationsLayer } from "./migrations/index.js"

export type TestDatabase = PgClient.PgClient | SqlClient.SqlClient

export const pgliteTestDatabase = (): Layer.Layer<TestDatabase, unknown> =>
  MigrationsLayer.pipe(Layer.provideMerge(pgliteLayer()))

const adminQuery = (url: string, text: string) =>
  Effect.acquireUseRelease(
    Effect.tryPromise(async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      return client
    }),
    (client) => Effect.tryPromise(() => client.query(text)),
    (client) => Effect.promise(() => client.end())
  )

/** A uniquely named database next to the one `url` names; dropped on release. */
export const postgresTestDatabase = (url: string, options: { readonly maxConnections?: number } = {}): Layer.Layer<TestDatabase, unknown> =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const name = `frank_t_${process.pid}_${Math.floor(performance.now() * 1000).toString(36)}_${Math.random().toString(36).slice(2, 8)}`
      yield* Effect.acquireRelease(adminQuery(url, `CREATE DATABASE ${name}`), () =>
        adminQuery(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(Effect.ignore)
      )
      const target = new URL(url)
      target.pathname = `/${name}`
      return MigrationsLayer.pipe(Layer.provideMerge(postgresLayer(Redacted.make(target.toString()), options)))
    })
  )

/**
 * The SQL client of a Frank deployment: a PostgreSQL server (`DATABASE_URL`) or embedded PGlite
 * (the default). Both speak the Postgres wire protocol to @effect/sql-pg, so one set of SQL stores
 * and one schema serve both. PGlite is served on a loopback socket by pglite-socket; it runs one
 * backend and serializes transactions, which is what makes its row locks trivially correct.
 */
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import type { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, String as Str } from "effect"
import { pgTypes } from "./pgTypes.js"

const naming = { transformResultNames: Str.snakeToCamel, transformQueryNames: Str.camelToSnake } as const

/** PGlite multiplexes client connections onto one backend; more connections only queue. */
const PGLITE_CONNECTIONS = 8

export interface PgliteOptions {
  /** Directory of the database files; in memory when omitted. */
  readonly dataDir?: string | undefined
}

export const pgliteLayer = (options: PgliteOptions = {}): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown> =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const db = yield* Effect.acquireRelease(
        Effect.tryPromise(() => (options.dataDir === undefined ? PGlite.create() : PGlite.create(options.dataDir))),
        (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
      )
      const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: PGLITE_CONNECTIONS })
      yield* Effect.acquireRelease(
        Effect.tryPromise(() => server.start()),
        () => Effect.promise(() => server.stop()).pipe(Effect.ignore)
      )
      const port = Number(server.getServerConn().split(":").pop())
      return PgClient.layer({
        host: "127.0.0.1",
        port,
        database: "postgres",
        username: "postgres",
        password: Redacted.make("pglite"),
        maxConnections: PGLITE_CONNECTIONS,
        types: pgTypes,
        ...naming
      })
    })
  )

export const postgresLayer = (url: Redacted.Redacted<string>, options: { readonly maxConnections?: number } = {}) =>
  PgClient.layer({ url, maxConnections: options.maxConnections ?? 10, types: pgTypes, ...naming })

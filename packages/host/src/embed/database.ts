/**
 * Where an embedded Frank keeps its data: the app's `pg` Pool, a PostgreSQL URL, or embedded
 * PGlite in a directory. Migrations run on it unless the embedder runs them itself.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { clientOptions, DatabaseSchema, Migrations, PgliteDatabase, PostgresDatabase, pgTypes } from "@frank/adapters"
import { Effect, Layer, Redacted } from "effect"
import type { Pool, PoolClient } from "pg"
import { FrankError } from "./FrankError.js"

/** Which database Frank uses; exactly one. */
export type FrankDatabase =
  | {
      /** Your application's `pg` Pool: Frank takes connections from it and never ends it. */
      readonly pool: Pool
      readonly databaseUrl?: never
      readonly embedded?: never
    }
  | {
      /** A PostgreSQL URL: Frank opens a pool of its own (`maxConnections`, 10 by default). */
      readonly databaseUrl: string
      readonly pool?: never
      readonly embedded?: never
    }
  | {
      /** Embedded PGlite in this directory (created when missing); `"memory"` for a throwaway one. */
      readonly embedded: string
      readonly pool?: never
      readonly databaseUrl?: never
    }

/** How the database is opened. */
export interface DatabaseOptions {
  /**
   * The PostgreSQL schema Frank's tables, views and functions live in (default `frank`): lower-case
   * letters, digits and `_`. Two Frank instances with different schemas share a database unseen.
   */
  readonly schema?: string | undefined
  /** Apply Frank's bundled migrations at start (default true). */
  readonly migrate?: boolean | undefined
  /** Connections of Frank's own pool with `databaseUrl` (default 10). */
  readonly maxConnections?: number | undefined
}

/** Whether the database is a PostgreSQL server (other processes may share it; LISTEN/NOTIFY work). */
export const isPostgres = (db: FrankDatabase): boolean => db.embedded === undefined

/**
 * The app's client with Frank's int8 parsing on Frank's queries (pg takes `types` per query); the
 * app's other uses of the pool are untouched. Everything else is the client itself.
 */
const typedClient = (client: PoolClient): PoolClient =>
  new Proxy(client, {
    get(target, prop) {
      // Back in the app's pool, the connection has the app's search_path again.
      if (prop === "release")
        return (err?: Error | boolean) =>
          err ? target.release(err) : target.query("RESET search_path", (e: Error | undefined) => target.release(e))
      if (prop === "query")
        return (config: unknown, values?: unknown, callback?: unknown) =>
          typeof config === "string"
            ? target.query({ text: config, values: values as Array<unknown>, types: pgTypes }, callback as never)
            : typeof config === "object" && config !== null && !("submit" in config)
              ? target.query({ types: pgTypes, ...(config as object) } as never, values as never, callback as never)
              : target.query(config as never, values as never, callback as never)
      const value = Reflect.get(target, prop, target)
      return typeof value === "function" ? value.bind(target) : value
    }
  })

/**
 * The app's pool as Frank's client sees it: every connection it hands Frank is typed and has
 * Frank's schema as its search_path until it is released.
 */
const typedPool = (pool: Pool, schema: string): Pool =>
  new Proxy(pool, {
    get(target, prop) {
      if (prop === "connect")
        return (callback: (err: Error | undefined, client: PoolClient | undefined, release: () => void) => void) =>
          target.connect((err, client, release) => {
            if (err || client === undefined) return callback(err, undefined, release)
            client.query({ text: "SELECT set_config('search_path', $1, false)", values: [schema] }, (setErr) => {
              if (setErr) {
                release(setErr)
                return callback(setErr, undefined, release)
              }
              const typed = typedClient(client)
              callback(undefined, typed, () => typed.release())
            })
          })
      const value = Reflect.get(target, prop, target)
      return typeof value === "function" ? value.bind(target) : value
    }
  })

const clientLayer = (db: FrankDatabase, options: DatabaseOptions, schema: string) => {
  if (db.pool !== undefined) {
    const { types: _types, ...transforms } = clientOptions
    return Layer.merge(
      PgClient.layerFromPool({
        acquire: Effect.succeed(typedPool(db.pool, schema)),
        applicationName: "frank",
        ...transforms
      }),
      DatabaseSchema.layer(schema)
    )
  }
  if (db.databaseUrl !== undefined)
    return PostgresDatabase.layer(Redacted.make(db.databaseUrl), {
      maxConnections: options.maxConnections ?? 10,
      schema
    })
  return PgliteDatabase.layerWith(db.embedded === "memory" ? { schema } : { dataDir: db.embedded, schema })
}

/** Refused before anything opens: a schema name Frank cannot use. */
const checkSchema = (schema: string) => {
  const problem = DatabaseSchema.invalidSchemaName(schema)
  return problem === undefined
    ? Effect.void
    : Effect.fail(new FrankError({ code: "SCHEMA_INVALID", status: 400, message: problem, details: { schema } }))
}

/** The schema Frank's objects live in. */
export const schema = (options: DatabaseOptions): string => options.schema ?? DatabaseSchema.DEFAULT_SCHEMA

/** The database layer with migrations applied (unless `migrate: false`). */
export const databaseLayer = (db: FrankDatabase, options: DatabaseOptions) =>
  Layer.unwrapEffect(
    Effect.as(
      checkSchema(schema(options)),
      options.migrate === false
        ? clientLayer(db, options, schema(options))
        : Migrations.layer.pipe(Layer.provideMerge(clientLayer(db, options, schema(options))))
    )
  )

/**
 * Embedded PGlite served on a loopback socket by pglite-socket, so the same @effect/sql-pg client
 * (node-postgres underneath) and the same SQL stores run on it as on a PostgreSQL server.
 *
 * PGlite is one single-threaded backend. pglite-socket multiplexes client connections onto it by
 * queueing protocol messages, and it keeps an explicit transaction to its connection, but it
 * interleaves the messages of different connections outside transactions one message at a time.
 * With several connections, a Parse of one connection can land between the Parse and the Bind of
 * another when a message spans TCP reads (reproduced with 300 KB parameters: "bind message
 * supplies 2 parameters, but prepared statement "" requires 1"), i.e. a statement could run with
 * another statement's parameters. The client therefore uses ONE connection. That costs nothing
 * real: the backend runs one statement at a time anyway, and transactions serialize either way.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Layer, Redacted } from "effect"
import { importOptional, MissingPackageError } from "../node/internal/optionalPackage.js"
import { clientOptions } from "./clientOptions.js"
import * as DatabaseSchema from "./DatabaseSchema.js"
import { pgliteTemplateDirectory, seedFromTemplate } from "./pgliteTemplate.js"

/** Connections of the client pool; see the module comment for why it is one. */
const CLIENT_CONNECTIONS = 1
/**
 * The server accepts a little more than the pool opens: when the pool replaces a connection
 * (idle timeout) the server may not have noticed the old socket's close yet, and at an exact
 * limit it would answer the new one with "Too many connections".
 */
const SERVER_CONNECTIONS = CLIENT_CONNECTIONS + 2

export interface PgliteOptions {
  /** Directory of the database files; in memory when omitted. */
  readonly dataDir?: string | undefined
  /**
   * The initialised cluster a new `dataDir` is copied from (pgliteTemplate.ts); the build's
   * template when omitted, `false` to let PGlite run initdb.
   */
  readonly template?: string | false | undefined
  /**
   * The schema that holds Frank's objects (DatabaseSchema.ts), `frank` when omitted. One PGlite
   * is one backend session, so its search_path is a start parameter of the database itself: each
   * layer opens its own PGlite, and a data directory holding several schemas serves one at a time.
   */
  readonly schema?: string | undefined
}

/**
 * PostgreSQL settings on top of PGlite's own start parameters. Postgres touches all of
 * shared_buffers when it starts, and initdb's 128 MB made it the largest part of the process
 * (151 MiB of WASM heap resident against 29 MiB with 16 MB); the embedded database's working set
 * is a few MiB, and the OS page cache still holds its files. Given at every start, so data
 * directories made before this setting get it too.
 */
/**
 * The database runs in the worker's process, so a crash of one is a crash of both: the sent mark
 * must be flushed at its commit (the webhook_mark_sent function reads this; on a PostgreSQL
 * server it skips the flush, docs/decisions.md).
 */
const SETTINGS = ["-c", "shared_buffers=16MB", "-c", "frank.durable_sent_mark=on"]

// A missing optional package says so itself (which package to install), in place of `message`.
const failure = (message: string) => (cause: unknown) =>
  new SqlError({ message: cause instanceof MissingPackageError ? cause.message : message, cause })

/**
 * Opens (or creates) the database. PGlite's modules are imported here, not at the top, so a
 * process on PostgreSQL never loads them; a new data directory is seeded from the build's
 * template instead of running initdb (pgliteTemplate.ts).
 */
const open = (options: PgliteOptions, schema: string) =>
  Effect.gen(function* () {
    const where = options.dataDir ?? "memory"
    const { dataDir, template = pgliteTemplateDirectory } = options
    if (dataDir !== undefined && template !== false)
      yield* Effect.tryPromise({
        try: () => seedFromTemplate(dataDir, template),
        catch: failure(`PGlite: cannot seed the new data directory ${dataDir} from the template`)
      })
    return yield* Effect.tryPromise({
      try: async () => {
        const { PGlite } = await importOptional(
          "@electric-sql/pglite",
          "The embedded database (PgliteDatabase)",
          () => import("@electric-sql/pglite")
        )
        // The socket server ignores a client's startup options: the session's search_path is set here.
        const startParams = [...PGlite.defaultStartParams, ...SETTINGS, "-c", `search_path=${schema}`]
        return PGlite.create(dataDir === undefined ? { startParams } : { dataDir, startParams })
      },
      catch: failure(`PGlite: cannot open the database (${where})`)
    })
  })

/** A scoped PGlite database and its socket server; both are stopped when the scope closes. */
const serve = (options: PgliteOptions, schema: string) =>
  Effect.gen(function* () {
    const db = yield* Effect.acquireRelease(open(options, schema), (db) =>
      Effect.promise(() => db.close()).pipe(Effect.ignore)
    )
    const { PGLiteSocketServer } = yield* Effect.tryPromise({
      try: () =>
        importOptional(
          "@electric-sql/pglite-socket",
          "The embedded database (PgliteDatabase)",
          () => import("@electric-sql/pglite-socket")
        ),
      catch: failure("PGlite: cannot load the socket server")
    })
    const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: SERVER_CONNECTIONS })
    yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => server.start(), catch: failure("PGlite: cannot start the socket server") }),
      () => Effect.promise(() => server.stop()).pipe(Effect.ignore)
    )
    // Port 0 asked the OS for a free port; getServerConn() reports the one it got ("host:port").
    return Number(server.getServerConn().split(":").pop())
  })

/** A PGlite database (`dataDir`, or in memory) with its schema as the search_path, which it provides too. */
export const layerWith = (
  options: PgliteOptions
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | DatabaseSchema.DatabaseSchema, SqlError> =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const schema = yield* DatabaseSchema.check(options.schema ?? DatabaseSchema.DEFAULT_SCHEMA)
      const port = yield* serve(options, schema)
      return PgClient.layer({
        host: "127.0.0.1",
        port,
        database: "postgres",
        username: "postgres",
        // PGlite ignores the password; pg insists on a string.
        password: Redacted.make("pglite"),
        maxConnections: CLIENT_CONNECTIONS,
        applicationName: "frank",
        ...clientOptions
      }).pipe(Layer.merge(DatabaseSchema.layer(schema)))
    })
  )

/** An in-memory PGlite (tests, demos) in the schema `frank`. */
export const layer: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | DatabaseSchema.DatabaseSchema, SqlError> =
  layerWith({})

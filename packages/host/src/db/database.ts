/**
 * The host's database: PostgreSQL when DATABASE_URL is set, else embedded PGlite in
 * `<FRANK_DATA_DIR>/pgdata`; either way Frank's objects live in the schema FRANK_DB_SCHEMA.
 * Migrations run before anything else uses it.
 */
import { join } from "node:path"
import { setFlagsFromString } from "node:v8"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { MigrationError } from "@effect/sql/Migrator"
import type { SqlError } from "@effect/sql/SqlError"
import type * as PgClient from "@effect/sql-pg/PgClient"
import { type DatabaseSchema, Migrations, PgliteDatabase, PostgresDatabase } from "@frank/adapters"
import { Effect, Layer, Option } from "effect"
import type { HostConfigShape } from "../config/HostConfig.js"

/**
 * Embedded PGlite's WebAssembly runs on V8's baseline compiler alone. The optimising tier compiles
 * Postgres' hot functions on background threads whose memory the allocator keeps: about 70 MiB
 * more resident for the same database, and the compiling competes with the start for the CPU;
 * the baseline code serves fewer requests per second (docs/performance.md, "Host footprint").
 * The flag is process-wide and must precede PGlite's compile, so it is set here, only when this
 * host embeds PGlite; a host on PostgreSQL runs no WebAssembly on its hot path.
 */
const baselineWasmOnly = Effect.sync(() => setFlagsFromString("--liftoff-only"))

/** What the database layer provides: the client, and the schema its connections are in. */
export type Database = PgClient.PgClient | SqlClient.SqlClient | DatabaseSchema.DatabaseSchema

export const databaseLayer = (config: HostConfigShape): Layer.Layer<Database, SqlError> =>
  Option.match(config.databaseUrl, {
    onNone: () =>
      Layer.unwrapEffect(
        Effect.as(
          baselineWasmOnly,
          PgliteDatabase.layerWith({ dataDir: join(config.dataDir, "pgdata"), schema: config.dbSchema })
        )
      ),
    onSome: (url) => PostgresDatabase.layer(url, { maxConnections: 20, schema: config.dbSchema })
  })

/** The database with every bundled migration applied. */
export const migratedDatabaseLayer = (config: HostConfigShape): Layer.Layer<Database, SqlError | MigrationError> =>
  Migrations.layer.pipe(Layer.provideMerge(databaseLayer(config)))

/**
 * The host's database: PostgreSQL when DATABASE_URL is set, else embedded PGlite in
 * `<FRANK_DATA_DIR>/pgdata`. Migrations run before anything else uses it.
 */
import { join } from "node:path"
import { setFlagsFromString } from "node:v8"
import { MigrationsLayer, pgliteLayer, postgresLayer } from "@frank/adapters"
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

export const databaseLayer = (config: HostConfigShape) =>
  Option.match(config.databaseUrl, {
    onNone: () =>
      Layer.unwrapEffect(Effect.as(baselineWasmOnly, pgliteLayer({ dataDir: join(config.dataDir, "pgdata") }))),
    onSome: (url) => postgresLayer(url, { maxConnections: 20 })
  })

/** The database with every bundled migration applied. */
export const migratedDatabaseLayer = (config: HostConfigShape) =>
  MigrationsLayer.pipe(Layer.provideMerge(databaseLayer(config)))

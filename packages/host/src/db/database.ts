/**
 * The host's database: PostgreSQL when DATABASE_URL is set, else embedded PGlite in
 * `<FRANK_DATA_DIR>/pgdata`. Migrations run before anything else uses it.
 */
import { join } from "node:path"
import { MigrationsLayer, pgliteLayer, postgresLayer } from "@frank/adapters"
import { Layer, Option } from "effect"
import type { HostConfigShape } from "../config/HostConfig.js"

export const databaseLayer = (config: HostConfigShape) =>
  Option.match(config.databaseUrl, {
    onNone: () => pgliteLayer({ dataDir: join(config.dataDir, "pgdata") }),
    onSome: (url) => postgresLayer(url, { maxConnections: 20 })
  })

/** The database with every bundled migration applied. */
export const migratedDatabaseLayer = (config: HostConfigShape) =>
  MigrationsLayer.pipe(Layer.provideMerge(databaseLayer(config)))

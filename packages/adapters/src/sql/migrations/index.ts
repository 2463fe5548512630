/**
 * The migration registry. Each migration is a module whose default export is an Effect; the
 * record keys are `<id>_<name>` as @effect/sql's Migrator expects. Applied migrations are kept in
 * `effect_sql_migrations`; on Postgres the migrator takes a table lock, so concurrent host starts
 * are safe.
 */
import { Migrator } from "@effect/sql"
import { Effect, Layer } from "effect"
import m0001 from "./0001_ledger.js"
import m0002 from "./0002_access.js"

const migrations = {
  "0001_ledger": m0001,
  "0002_access": m0002
}

export const migrationLoader = Migrator.fromRecord(migrations)

/** How many migrations this build ships; readiness requires all of them applied. */
export const migrationCount = Object.keys(migrations).length

// The generic migrator (it takes the Postgres table lock itself); PgMigrator would add pg_dump
// schema dumps, which need a filesystem and a pg_dump binary the host does not have.
export const runMigrations = Migrator.make({})({ loader: migrationLoader, table: "effect_sql_migrations" })

export const MigrationsLayer = Layer.effectDiscard(runMigrations.pipe(Effect.asVoid))

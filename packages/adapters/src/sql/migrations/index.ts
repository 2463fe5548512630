/**
 * The migration registry. Each migration is a module whose default export is an Effect using
 * SqlClient; the record keys are `<id>_<name>` as @effect/sql's Migrator expects. To add one,
 * write `NNNN_name.ts` next to this file and add its import and one line to `migrations`.
 * Applied migrations are kept in `effect_sql_migrations` (in the schema of the search_path); on
 * Postgres the migrator runs them in one transaction under a table lock, so concurrent host
 * starts are safe.
 */
import { Migrator } from "@effect/sql"
import { Effect, Layer } from "effect"
import m0001 from "./0001_ledger.js"
import m0002 from "./0002_access.js"
import m0003 from "./0003_webhooks.js"
import m0004 from "./0004_payments.js"
import m0005 from "./0005_invoices.js"
import m0006 from "./0006_tasks.js"
import m0007 from "./0007_files.js"
import m0008 from "./0008_webhook_worker_functions.js"
import m0009 from "./0009_webhook_rotation_windows.js"
import m0010 from "./0010_webhook_endpoint_purges.js"
import m0011 from "./0011_webhook_paused_backlogs.js"
import m0012 from "./0012_webhook_worker_plans.js"
import m0013 from "./0013_webhook_deleted_endpoints.js"
import m0014 from "./0014_webhook_pending_by_endpoint.js"
import m0016 from "./0016_cabinet_sign_ins.js"

const migrations = {
  "0001_ledger": m0001,
  "0002_access": m0002,
  "0003_webhooks": m0003,
  "0004_payments": m0004,
  "0005_invoices": m0005,
  "0006_tasks": m0006,
  "0007_files": m0007,
  "0008_webhook_worker_functions": m0008,
  "0009_webhook_rotation_windows": m0009,
  "0010_webhook_endpoint_purges": m0010,
  "0011_webhook_paused_backlogs": m0011,
  "0012_webhook_worker_plans": m0012,
  "0013_webhook_deleted_endpoints": m0013,
  "0014_webhook_pending_by_endpoint": m0014,
  "0016_cabinet_sign_ins": m0016
}

export const migrationLoader = Migrator.fromRecord(migrations)

/** How many migrations this build ships; readiness requires all of them applied. */
export const migrationCount = Object.keys(migrations).length

/**
 * `PgMigrator.run` is this same `Migrator.make` plus a pg_dump hook: its type requires
 * FileSystem, Path and CommandExecutor even with `fromRecord` (they are only touched when a
 * `schemaDirectory` is given). The generic migrator runs the identical steps — including the
 * Postgres `LOCK TABLE` — and needs nothing but SqlClient.
 */
export const runMigrations = Migrator.make({})({ loader: migrationLoader, table: "effect_sql_migrations" })

export const MigrationsLayer = Layer.effectDiscard(Effect.asVoid(runMigrations))

/**
 * The migrations: one frozen `.sql` file each in `packages/adapters/migrations/` (its README says
 * the rules), named `NNNN_name.sql`, applied in id order by @effect/sql's Migrator. The id and
 * name are what `effect_sql_migrations` records, so they never change once landed.
 *
 * The folder is found relative to this module, two levels up, the same from `src/sql/` and from a
 * compiled `dist/sql/`, and it ships with the package. Each file runs as one multi-statement
 * query (simple protocol) inside the migrator's transaction; on Postgres the migrator takes a
 * table lock first, so concurrent host starts are safe.
 */
import { readdirSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Migrator, SqlClient } from "@effect/sql"
import { MigrationError } from "@effect/sql/Migrator"
import { Effect, Layer } from "effect"

/** Where the `.sql` files are, from `src/sql/` or `dist/sql/` alike. */
export const migrationsDirectory = fileURLToPath(new URL("../../migrations/", import.meta.url))

const FILE_NAME = /^(\d{4})_(\w+)\.sql$/

interface MigrationFile {
  readonly id: number
  readonly name: string
  readonly file: string
}

/** The folder's migrations in id order; none when the folder is missing (the loader then fails). */
const listMigrations = (): ReadonlyArray<MigrationFile> => {
  let names: Array<string>
  try {
    names = readdirSync(migrationsDirectory)
  } catch {
    return []
  }
  return names
    .flatMap((file) => {
      const match = FILE_NAME.exec(file)
      return match === null ? [] : [{ id: Number(match[1]), name: match[2] as string, file }]
    })
    .sort((a, b) => a.id - b.id)
}

const files = listMigrations()

/** How many migrations this build ships; readiness requires all of them applied. */
export const migrationCount = files.length

const badState = (message: string) => new MigrationError({ reason: "bad-state", message })

/** The statements of one file, run as they are written. */
const apply = (text: string) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text).withoutTransform)

/**
 * Ids must run 1, 2, 3, … without gaps: a gap or a repeat is a mis-numbered file, and the
 * migrator, which only applies ids above the highest one recorded, would skip it silently later.
 */
export const migrationLoader: Migrator.Loader = Effect.suspend(() => {
  if (files.length === 0) return Effect.fail(badState(`no migrations found in ${migrationsDirectory}`))
  const misnumbered = files.find((m, i) => m.id !== i + 1)
  if (misnumbered !== undefined)
    return Effect.fail(badState(`migration ${misnumbered.file}: ids must run 1, 2, 3, … without gaps or repeats`))
  return Effect.succeed(
    files.map(
      (m): Migrator.ResolvedMigration => [
        m.id,
        m.name,
        Effect.tryPromise({
          try: () => readFile(join(migrationsDirectory, m.file), "utf8"),
          catch: (cause) =>
            new MigrationError({ reason: "import-error", message: `cannot read migration ${m.file}`, cause })
        }).pipe(Effect.map(apply))
      ]
    )
  )
})

/**
 * `PgMigrator.run` is this same `Migrator.make` plus a pg_dump hook, and its type requires
 * FileSystem, Path and CommandExecutor; the generic migrator runs the identical steps (the
 * Postgres `LOCK TABLE` included) and needs nothing but SqlClient.
 */
export const runMigrations = Migrator.make({})({ loader: migrationLoader, table: "effect_sql_migrations" })

export const MigrationsLayer = Layer.effectDiscard(Effect.asVoid(runMigrations))

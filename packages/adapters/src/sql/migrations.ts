/**
 * The migrations: one frozen `.sql` file each in `packages/adapters/migrations/` (its README says
 * the rules), named `NNNN_name.sql`, applied in id order by @effect/sql's Migrator. The id and
 * name are what `effect_sql_migrations` records, so they never change once landed.
 *
 * The folder is found relative to this module, two levels up, the same from `src/sql/` and from a
 * compiled `dist/sql/`, and it ships with the package. Each file runs as one multi-statement
 * query (simple protocol) inside the migrator's transaction; on Postgres the migrator takes a
 * table lock first, so concurrent host starts are safe.
 *
 * Everything lives in the schema of the `DatabaseSchema` in context, the migrator's table too:
 * before the migrator runs, the schema is created when missing and a database that earlier builds
 * made in `public` is moved into it (internal/prepareSchema.ts).
 */
import { readdirSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { MigrationError } from "@effect/sql/Migrator"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer } from "effect"
import { DatabaseSchema } from "./DatabaseSchema.js"
import { type KnownMigration, prepareSchema } from "./internal/prepareSchema.js"

/** Where the `.sql` files are, from `src/sql/` or `dist/sql/` alike. */
export const directory = fileURLToPath(new URL("../../migrations/", import.meta.url))

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
    names = readdirSync(directory)
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
export const count = files.length

const badState = (message: string) => new MigrationError({ reason: "bad-state", message })

/** The statements of one file, run as they are written. */
const apply = (text: string) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(text).withoutTransform)

const readText = (m: MigrationFile) =>
  Effect.tryPromise({
    try: () => readFile(join(directory, m.file), "utf8"),
    catch: (cause) => new MigrationError({ reason: "import-error", message: `cannot read migration ${m.file}`, cause })
  })

const known: ReadonlyArray<KnownMigration> = files.map((m) => ({ id: m.id, name: m.name, text: readText(m) }))

/**
 * Ids must run 1, 2, 3, … without gaps: a gap or a repeat is a mis-numbered file, and the
 * migrator, which only applies ids above the highest one recorded, would skip it silently later.
 */
export const loader: Migrator.Loader = Effect.suspend(() => {
  if (files.length === 0) return Effect.fail(badState(`no migrations found in ${directory}`))
  const misnumbered = files.find((m, i) => m.id !== i + 1)
  if (misnumbered !== undefined)
    return Effect.fail(badState(`migration ${misnumbered.file}: ids must run 1, 2, 3, … without gaps or repeats`))
  return Effect.succeed(files.map((m): Migrator.ResolvedMigration => [m.id, m.name, Effect.map(readText(m), apply)]))
})

/**
 * `PgMigrator.run` is this same `Migrator.make` plus a pg_dump hook, and its type requires
 * FileSystem, Path and CommandExecutor; the generic migrator runs the identical steps (the
 * Postgres `LOCK TABLE` included) and needs nothing but SqlClient.
 */
const migrate = Migrator.make({})({ loader, table: "effect_sql_migrations" })

/**
 * Prepares the schema (created when missing, a database of earlier builds moved out of `public`),
 * then applies the pending migrations in it; returns the ids and names it applied.
 */
export const run: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  MigrationError | SqlError,
  SqlClient.SqlClient | DatabaseSchema
> = Effect.flatMap(DatabaseSchema, ({ name }) => Effect.zipRight(prepareSchema(name, known), migrate))

/** Runs the pending migrations when built. */
export const layer = Layer.effectDiscard(Effect.asVoid(run))

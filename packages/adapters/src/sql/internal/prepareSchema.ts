/**
 * What the migrator does before it reads its history: the schema exists, a database that earlier
 * builds made in `public` has been moved into it, and the connection's search_path leads there.
 *
 * Why the move is not a migration of its own: the migrator finds its history through the
 * search_path, which on an old database is in `public`, and a database of any earlier build may
 * still have migrations to apply, which create and alter objects by unqualified names. So the
 * history table and every object its migrations made move first, in one transaction, and the
 * migrator then runs what is pending inside the schema. A restart finds the history in the schema
 * and moves nothing; a crash before the commit leaves the database as it was.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { MigrationError } from "@effect/sql/Migrator"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { createdNames } from "./createdNames.js"

/** One migration file of this build, as far as the move needs it. */
export interface KnownMigration {
  readonly id: number
  readonly name: string
  readonly text: Effect.Effect<string, MigrationError>
}

const HISTORY = "effect_sql_migrations"
const LEGACY = "public"
/** Serialises first starts: two hosts must not both create the schema or both move `public`. */
const SETUP_LOCK = 7_466_321_089_501_112

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`

/** The history table of `namespace` exists. Read from the catalog: it needs no rights on `namespace`. */
const hasHistory = (sql: SqlClient.SqlClient, namespace: string) =>
  Effect.map(
    sql<{ found: boolean }>`SELECT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ${namespace} AND c.relname = ${HISTORY} AND c.relkind IN ('r', 'p')) AS found`,
    (rows) => rows[0]?.found === true
  )

/**
 * The recorded history is Frank's: ids 1, 2, 3, … under this build's names. Another application's
 * @effect/sql migrator uses the same table name, and its history must stay where it is.
 */
const isFrankHistory = (
  rows: ReadonlyArray<{ readonly migrationId: number; readonly name: string }>,
  known: ReadonlyArray<KnownMigration>
) => rows.length > 0 && rows.every((row, i) => row.migrationId === i + 1 && known[i]?.name === row.name)

/** Moves every object `names` lists from `public` into `schema`: routines, tables, then views, sequences and types. */
const moveObjects = (sql: SqlClient.SqlClient, schema: string, names: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const into = `SET SCHEMA ${quote(schema)}`
    // Routines first: their signatures may name table row types, printed here while still in public.
    const routines = yield* sql<{ signature: string }>`SELECT p.oid::regprocedure::text AS signature
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = ${LEGACY} AND p.prokind IN ('f', 'p') AND p.proname = ANY(${names})`
    for (const r of routines) yield* sql.unsafe(`ALTER ROUTINE ${r.signature} ${into}`)
    const relations = (kinds: ReadonlyArray<string>) =>
      sql<{ name: string; kind: string }>`SELECT c.relname AS name, c.relkind::text AS kind
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = ${LEGACY} AND c.relkind::text = ANY(${kinds}) AND c.relname = ANY(${names})`
    const ALTER: Record<string, string> = {
      r: "TABLE",
      p: "TABLE",
      f: "FOREIGN TABLE",
      v: "VIEW",
      m: "MATERIALIZED VIEW",
      S: "SEQUENCE"
    }
    // Tables before the rest: their identity sequences go with them and are not listed again.
    for (const kinds of [
      ["r", "p", "f"],
      ["v", "m", "S"]
    ])
      for (const r of yield* relations(kinds))
        yield* sql.unsafe(`ALTER ${ALTER[r.kind]} ${LEGACY}.${quote(r.name)} ${into}`)
    const types = yield* sql<{ name: string; domain: boolean }>`SELECT t.typname AS name, t.typtype = 'd' AS domain
      FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace LEFT JOIN pg_class c ON c.oid = t.typrelid
      WHERE n.nspname = ${LEGACY} AND t.typname = ANY(${names}) AND (t.typrelid = 0 OR c.relkind = 'c')`
    for (const t of types) yield* sql.unsafe(`ALTER ${t.domain ? "DOMAIN" : "TYPE"} ${LEGACY}.${quote(t.name)} ${into}`)
  })

/** Moves a Frank that earlier builds made in `public` into `schema`, its history last. */
const adoptPublic = (sql: SqlClient.SqlClient, schema: string, known: ReadonlyArray<KnownMigration>) =>
  Effect.gen(function* () {
    // Qualified on purpose: this is where earlier builds kept Frank.
    const rows = yield* sql<{ migrationId: number; name: string }>`SELECT migration_id, name
      FROM ${sql(LEGACY)}.${sql(HISTORY)} ORDER BY migration_id`
    if (!isFrankHistory(rows, known))
      return yield* Effect.logInfo(`${LEGACY}.${HISTORY} is not Frank's migration history; left where it is`)
    const texts = yield* Effect.forEach(known.slice(0, rows.length), (m) => m.text)
    yield* moveObjects(sql, schema, [...new Set(texts.flatMap(createdNames))])
    yield* sql.unsafe(`ALTER TABLE ${LEGACY}.${HISTORY} SET SCHEMA ${quote(schema)}`)
    yield* Effect.logInfo(`moved Frank's ${rows.length} migrations' objects from ${LEGACY} into schema ${schema}`)
  })

/** The schema exists, holds what earlier builds left in `public`, and the connection resolves names in it. */
export const prepareSchema = (
  schema: string,
  known: ReadonlyArray<KnownMigration>
): Effect.Effect<void, MigrationError | SqlError, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(${SETUP_LOCK})`
        const [found] = yield* sql<{
          exists: boolean
        }>`SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = ${schema}) AS exists`
        // Created only when missing: CREATE SCHEMA IF NOT EXISTS needs CREATE on the database even
        // when the schema is there, and a DBA may have made it for a role that has no such right.
        if (found?.exists !== true) yield* sql.unsafe(`CREATE SCHEMA ${quote(schema)}`)
        if (schema !== LEGACY && !(yield* hasHistory(sql, schema)) && (yield* hasHistory(sql, LEGACY)))
          yield* adoptPublic(sql, schema, known)
      })
    )
    const [current] = yield* sql<{ schema: string | null }>`SELECT current_schema() AS schema`
    if (current?.schema !== schema)
      return yield* new MigrationError({
        reason: "bad-state",
        message: `the connection's search_path resolves to ${current?.schema ?? "no schema"}, not to Frank's schema ${schema}: connect with the startup option "-c search_path=${schema}" (DatabaseSchema.withSearchPath)`
      })
  })

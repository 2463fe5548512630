/**
 * The PostgreSQL schema that holds every object of one Frank: its tables, views, functions,
 * sequences and the migrator's own `effect_sql_migrations`. `frank` unless told otherwise, so
 * Frank can share a database with the application that embeds it (whose tables are in `public`),
 * and two Frank engines with different schemas can share one database without seeing each other.
 *
 * Frank's SQL names its objects unqualified; they resolve through the connection's `search_path`,
 * which the database layers set to this schema alone (`PostgresDatabase.layer(url, { schema })`
 * through the startup `options`, `PgliteDatabase.layerWith({ schema })` through PGlite's start
 * parameters). Those layers also provide this service, which the migrator reads to create the
 * schema and to move a database of earlier builds out of `public` (migrations.ts).
 */
import { Context, Effect, Layer } from "effect"

/** The schema Frank uses when none is given. */
export const DEFAULT_SCHEMA = "frank"

/**
 * At most this many characters: the webhook wake-up channel (`<schema>.webhooks`) must stay within
 * Postgres' 63-byte identifier limit.
 */
export const MAX_SCHEMA_NAME_LENGTH = 48

const NAME = /^[a-z_][a-z0-9_]*$/

/**
 * Why `name` cannot be a Frank schema, or `undefined` when it can. Lower-case letters, digits and
 * underscores only, so the name needs no quoting anywhere (search_path, DDL, channel names).
 */
export const invalidSchemaName = (name: string): string | undefined => {
  if (!NAME.test(name))
    return `schema name "${name}" must be lower-case letters, digits and underscores, not starting with a digit`
  if (name.length > MAX_SCHEMA_NAME_LENGTH)
    return `schema name "${name}" is longer than ${MAX_SCHEMA_NAME_LENGTH} characters`
  if (name.startsWith("pg_") || name === "information_schema") return `schema name "${name}" is reserved by PostgreSQL`
  return undefined
}

/** The schema of the database in context. */
export class DatabaseSchema extends Context.Tag("@frank/adapters/DatabaseSchema")<
  DatabaseSchema,
  { readonly name: string }
>() {}

/** `name`, checked; dies with the reason when it cannot be a schema name (a wiring bug, like a bad URL). */
export const check = (name: string): Effect.Effect<string> => {
  const invalid = invalidSchemaName(name)
  return invalid === undefined ? Effect.succeed(name) : Effect.dieMessage(invalid)
}

/**
 * Provides the schema for a SQL client built elsewhere (say `PgClient.layerFromPool`), whose
 * connections must then have it as their search_path (`withSearchPath`, `searchPathOption`).
 */
export const layer = (name: string = DEFAULT_SCHEMA): Layer.Layer<DatabaseSchema> =>
  Layer.effect(
    DatabaseSchema,
    Effect.map(check(name), (checked) => ({ name: checked }))
  )

/** The startup option that makes a connection's search_path `schema` alone. */
export const searchPathOption = (schema: string): string => `-c search_path=${schema}`

/**
 * `url` with the connections' search_path set to `schema`, appended after any `options` the URL
 * carries already (a later `-c` wins, so a search_path there is overridden).
 */
export const withSearchPath = (url: string, schema: string): string => {
  const target = new URL(url)
  const existing = target.searchParams.get("options")
  target.searchParams.set("options", `${existing === null ? "" : `${existing} `}${searchPathOption(schema)}`)
  return target.toString()
}

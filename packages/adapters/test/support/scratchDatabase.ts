/**
 * Databases and roles of a test's own on the PostgreSQL server of DATABASE_URL, for what a schema
 * cannot isolate: the `public` schema itself, and rights. Named after the URL's database
 * (`<db>_t_<hex>`), dropped when the scope closes. Needs CREATEDB and CREATEROLE (CI's superuser).
 */
import { randomUUID } from "node:crypto"
import { Effect, type Scope } from "effect"
import pg from "pg"

/** Runs `text` (several statements) on a connection of its own; answers the last result's rows. */
export const runScript = (databaseUrl: string, text: string): Effect.Effect<ReadonlyArray<Record<string, unknown>>> =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    try {
      const result = await client.query(text)
      return (Array.isArray(result) ? result.at(-1)?.rows : result.rows) ?? []
    } finally {
      await client.end()
    }
  })

const suffix = () => randomUUID().replaceAll("-", "").slice(0, 10)

/** `url` naming another database, and optionally another user. */
export const urlOf = (url: string, database: string, user?: string): string => {
  const target = new URL(url)
  target.pathname = `/${database}`
  if (user !== undefined) {
    target.username = user
    target.password = ""
  }
  return target.toString()
}

/** A new, empty database on the server of `url`; answers its URL. */
export const scratchDatabase = (url: string): Effect.Effect<string, never, Scope.Scope> => {
  const name = `${new URL(url).pathname.slice(1)}_t_${suffix()}`
  return Effect.acquireRelease(Effect.as(runScript(url, `CREATE DATABASE ${name}`), urlOf(url, name)), () =>
    Effect.ignore(runScript(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
  )
}

/** A new login role (dropped after the databases made after it, which must hold its objects). */
export const scratchRole = (url: string): Effect.Effect<string, never, Scope.Scope> => {
  const name = `frank_t_role_${suffix()}`
  return Effect.acquireRelease(Effect.as(runScript(url, `CREATE ROLE ${name} LOGIN`), name), () =>
    Effect.ignore(runScript(url, `DROP ROLE IF EXISTS ${name}`))
  )
}

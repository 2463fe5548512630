/**
 * A database of a test's own on the PostgreSQL server of DATABASE_URL, for examples whose app
 * owns the `public` schema: named after the URL's database (`<db>_x_<hex>`), dropped by `drop`.
 * Needs CREATEDB (CI's superuser has it).
 */
import { randomUUID } from "node:crypto"
import pg from "pg"

const run = async (url: string, text: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(text)
  } finally {
    await client.end()
  }
}

/** A new, empty database; its URL, and how to drop it (connections still open are ended). */
export const scratchDatabase = async (url: string): Promise<{ readonly url: string; drop(): Promise<void> }> => {
  const target = new URL(url)
  const name = `${target.pathname.slice(1)}_x_${randomUUID().replaceAll("-", "").slice(0, 10)}`
  await run(url, `CREATE DATABASE ${name}`)
  target.pathname = `/${name}`
  return { url: target.toString(), drop: () => run(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}

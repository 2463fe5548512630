/**
 * Small helpers the benchmarks share: the PostgreSQL URL they need, a free loopback port and
 * one-off administrative statements (CREATE/DROP DATABASE) on their own connection.
 */
import { createServer } from "node:net"
import pg from "pg"

/** DATABASE_URL, or a notice and exit 0: without a server there is nothing to measure (not an error). */
export const databaseUrlOrExit = (bench: string): string => {
  const url = process.env.DATABASE_URL
  if (url === undefined || url.length === 0) {
    console.log(`${bench}: set DATABASE_URL to a PostgreSQL database to run it`)
    process.exit(0)
  }
  return url
}

/** A TCP port free on 127.0.0.1 at the time of the call. */
export const freePort = (): Promise<number> =>
  new Promise<number>((done) => {
    const s = createServer()
    s.listen(0, "127.0.0.1", () => {
      const a = s.address()
      s.close(() => done(typeof a === "object" && a !== null ? a.port : 0))
    })
  })

/** Runs one statement on a connection of its own (CREATE DATABASE cannot run in a pool's transaction). */
export const adminStatement = async (connectionString: string, text: string): Promise<void> => {
  const c = new pg.Client({ connectionString })
  await c.connect()
  try {
    await c.query(text)
  } finally {
    await c.end()
  }
}

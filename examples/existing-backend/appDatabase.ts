/**
 * The application's own database access, and the one place its writes meet Frank's: a
 * transaction in which the app's statements and Frank's API commit or roll back together.
 *
 * On PostgreSQL the app keeps its `pg` Pool, as it had before Frank: a transaction is a
 * PoolClient, `BEGIN`, the app's statements, `frank.inTransaction(client)`, `COMMIT`. On embedded
 * PGlite Frank owns the only connection, so the app's statements run in `frank.transaction`.
 */
import type { Frank, FrankApi } from "@frank/host/embed"
import type pg from "pg"

/** One of the app's statements (`$1` parameters); answers its rows. */
export type Query = <Row = Record<string, unknown>>(
  text: string,
  values?: ReadonlyArray<unknown>
) => Promise<ReadonlyArray<Row>>

/** What the app's routes use: statements alone, or a transaction shared with Frank. */
export interface AppDatabase {
  /** A statement outside any transaction. */
  readonly query: Query
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it rejects. */
  transaction<A>(fn: (query: Query, frank: FrankApi) => Promise<A>): Promise<A>
}

/** The app's pool, its transactions on one PoolClient that Frank joins with `inTransaction`. */
export const postgresDatabase = (pool: pg.Pool, frank: Frank): AppDatabase => ({
  query: async (text, values = []) => (await pool.query(text, [...values])).rows,
  transaction: async (fn) => {
    const client = await pool.connect()
    let broken: Error | undefined
    try {
      await client.query("BEGIN")
      const query: Query = async (text, values = []) => (await client.query(text, [...values])).rows
      const result = await fn(query, frank.inTransaction(client))
      await client.query("COMMIT") // Frank's rows, its billing event and the worker's wake-up go with it
      return result
    } catch (error) {
      // A connection whose ROLLBACK failed is not given back to the pool.
      await client.query("ROLLBACK").catch((e: Error) => {
        broken = e
      })
      throw error
    } finally {
      client.release(broken)
    }
  }
})

/** Embedded PGlite: every statement of the app runs on Frank's connection. */
export const embeddedDatabase = (frank: Frank): AppDatabase => ({
  query: (text, values) => frank.transaction((tx) => tx.query(text, values)),
  transaction: (fn) => frank.transaction((tx) => fn(tx.query, tx))
})

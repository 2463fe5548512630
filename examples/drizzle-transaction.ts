/**
 * The app's order row (written with drizzle-orm), a Frank credit and its `billing.topup.confirmed`
 * event in one transaction: they commit together, or the card capture's failure rolls all of
 * them back.
 *
 * PostgreSQL: the app takes a PoolClient from its own pool, runs `BEGIN`, and gives the same
 * client to drizzle (`drizzle({ client })`) and to Frank (`frank.inTransaction(client)`).
 * Embedded PGlite has one connection, Frank's: the app's statements run in `frank.transaction`,
 * drizzle reaching them through its proxy driver (`drizzle-orm/pg-proxy`) over `tx.query`.
 *
 * The app's tables are in a schema of its own (`shop`), so they resolve the same under Frank's
 * search_path and the app's.
 */
import type { Frank, FrankApi, FrankTransaction } from "@frank/host/embed"
import { eq } from "drizzle-orm"
import { drizzle } from "drizzle-orm/node-postgres"
import { integer, type PgDatabase, type PgQueryResultHKT, pgSchema, text } from "drizzle-orm/pg-core"
import { drizzle as drizzleProxy } from "drizzle-orm/pg-proxy"
import type pg from "pg"

/** The app's schema and its orders table. */
export const shop = pgSchema("shop")
export const orders = shop.table("orders", {
  id: text("id").primaryKey(),
  partnerId: text("partner_id").notNull(),
  amountMinor: integer("amount_minor").notNull(),
  status: text("status").notNull()
})

/** The app's DDL (it would come from drizzle-kit; here one statement per entry). */
export const shopDdl = [
  "CREATE SCHEMA IF NOT EXISTS shop",
  `CREATE TABLE IF NOT EXISTS shop.orders (
     id text PRIMARY KEY, partner_id text NOT NULL, amount_minor integer NOT NULL, status text NOT NULL
   )`
]

/** An order of credits: `amountMinor` in minor units (1 ₣ = 100). */
export interface Order {
  readonly id: string
  readonly partnerId: string
  readonly amountMinor: number
}

/** Takes the money from the buyer's card; rejects when the provider refuses. */
export type Capture = (order: Order) => Promise<void>

/** Drizzle on either driver: what the order's writes need. */
type Db = PgDatabase<PgQueryResultHKT>

/** The order's writes, Frank's credit among them, on a transaction already open. */
const writeOrder = async (db: Db, billing: FrankApi, order: Order, capture: Capture) => {
  await db.insert(orders).values({ ...order, status: "pending" })
  // Idempotent by reference: a retried order never credits twice.
  await billing.ledger.credit(order.partnerId, {
    kind: "topup",
    amountMinor: order.amountMinor,
    reference: `order:${order.id}`
  })
  await capture(order) // a refusal here rolls back the row, the credit and its event
  await db.update(orders).set({ status: "paid" }).where(eq(orders.id, order.id))
}

/** PostgreSQL: drizzle and Frank on the app's PoolClient, in the transaction the app began. */
export const placeOrder = async (pool: pg.Pool, frank: Frank, order: Order, capture: Capture): Promise<void> => {
  const client = await pool.connect()
  let broken: Error | undefined
  try {
    await client.query("BEGIN")
    await writeOrder(drizzle({ client }), frank.inTransaction(client), order, capture)
    await client.query("COMMIT") // the delivery worker is woken by this, not before
  } catch (error) {
    await client.query("ROLLBACK").catch((e: Error) => {
      broken = e
    })
    throw error
  } finally {
    client.release(broken)
  }
}

/**
 * Drizzle over the statements of a `frank.transaction`: its proxy driver wants rows as arrays of
 * values for queries it maps to objects itself (`all`), as `tx.queryValues` answers them.
 */
export const drizzleIn = (tx: FrankTransaction): Db =>
  drizzleProxy(async (sql, params, method) => ({
    rows: method === "all" ? [...(await tx.queryValues(sql, params))] : [...(await tx.query(sql, params))]
  }))

/** Embedded PGlite (or PostgreSQL without a pool of the app's): the same in `frank.transaction`. */
export const placeOrderEmbedded = (frank: Frank, order: Order, capture: Capture): Promise<void> =>
  frank.transaction((tx) => writeOrder(drizzleIn(tx), tx, order, capture))

/**
 * examples/drizzle-transaction.ts on PostgreSQL (drizzle and Frank on the app's PoolClient after
 * BEGIN; a scratch database) and on embedded PGlite (drizzle's proxy driver in
 * `frank.transaction`): the order row, the credit and its billing event commit together, and a
 * refused card capture after the credit rolls all three back.
 */
import { createFrank, type Frank } from "@frank/host/embed"
import { drizzle } from "drizzle-orm/node-postgres"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type Capture,
  drizzleIn,
  type Order,
  orders,
  placeOrder,
  placeOrderEmbedded,
  shopDdl
} from "./drizzle-transaction.js"
import { scratchDatabase } from "./support/scratchDatabase.js"

const settings = { pepper: "test-pepper-0123456789abcdef", publicBaseUrl: "https://app.example", schema: "frank" }

interface Shop {
  readonly frank: Frank
  readonly place: (order: Order, capture: Capture) => Promise<void>
  readonly orderRows: () => Promise<ReadonlyArray<typeof orders.$inferSelect>>
  /** Statements outside the order's transaction (counting Frank's rows). */
  readonly query: (text: string, values: ReadonlyArray<unknown>) => Promise<ReadonlyArray<Record<string, unknown>>>
  readonly close: () => Promise<void>
}

const scenario = (name: string, open: () => Promise<Shop>) =>
  describe(name, () => {
    let shop: Shop
    let partnerId: string
    const events = async () =>
      Number(
        (await shop.query("SELECT count(*)::int AS n FROM frank.webhook_events WHERE partner_id = $1", [partnerId]))[0]!
          .n
      )
    beforeAll(async () => {
      shop = await open()
      partnerId = (await shop.frank.partners.create("Drizzle shop")).id
    })
    afterAll(() => shop?.close())

    it("commits the order row, the credit and its billing event together", async () => {
      await shop.place({ id: "o-1", partnerId, amountMinor: 50_000 }, async () => {})
      expect(await shop.orderRows()).toEqual([{ id: "o-1", partnerId, amountMinor: 50_000, status: "paid" }])
      expect((await shop.frank.ledger.balance(partnerId)).available).toBe(500)
      expect(await events()).toBe(1)
    })

    it("a refused capture after the credit rolls the order row, the credit and its event back", async () => {
      const declined = new Error("card declined")
      const captured: Array<string> = []
      const thrown = await shop
        .place({ id: "o-2", partnerId, amountMinor: 70_000 }, async (order) => {
          captured.push(order.id)
          throw declined
        })
        .catch((e: unknown) => e)
      expect(thrown).toBe(declined)
      expect(captured).toEqual(["o-2"]) // the credit had been written when the capture failed
      expect((await shop.orderRows()).map((o) => o.id)).toEqual(["o-1"])
      expect((await shop.frank.ledger.balance(partnerId)).available).toBe(500)
      expect(await events()).toBe(1)
      const entries = await shop.frank.ledger.listEntries(partnerId)
      expect(entries.items.map((e) => e.reference)).toEqual(["order:o-1"])
    })
  })

// Registered only when a server exists (CI sets DATABASE_URL), as the other PostgreSQL tests.
const DATABASE_URL = process.env.DATABASE_URL
if (DATABASE_URL !== undefined)
  scenario("drizzle and Frank on the app's PoolClient (PostgreSQL)", async () => {
    const db = await scratchDatabase(DATABASE_URL)
    const pool = new pg.Pool({ connectionString: db.url })
    for (const statement of shopDdl) await pool.query(statement)
    const frank = await createFrank({ ...settings, pool })
    return {
      frank,
      place: (order, capture) => placeOrder(pool, frank, order, capture),
      orderRows: () => drizzle({ client: pool }).select().from(orders).orderBy(orders.id),
      query: async (text, values) => (await pool.query(text, [...values])).rows,
      close: async () => {
        await frank.close()
        await pool.end()
        await db.drop()
      }
    }
  })

scenario("drizzle's proxy driver in frank.transaction (embedded PGlite)", async () => {
  const frank = await createFrank({ ...settings, embedded: "memory" })
  await frank.transaction(async (tx) => {
    for (const statement of shopDdl) await tx.query(statement)
  })
  return {
    frank,
    place: (order, capture) => placeOrderEmbedded(frank, order, capture),
    orderRows: () => frank.transaction((tx) => drizzleIn(tx).select().from(orders).orderBy(orders.id)),
    query: (text, values) => frank.transaction((tx) => tx.query(text, values)),
    close: () => frank.close()
  }
})

/**
 * The app's transaction on PostgreSQL: the app's own row, a Frank credit and its
 * `billing.topup.confirmed` event commit together and roll back together, and the delivery worker
 * is woken by the COMMIT, not before. The worker's poll is set to a minute, so a delivery that
 * arrives within seconds of the commit was woken by it.
 *
 * On embedded PGlite, Frank owns the only connection: `inTransaction` refuses, `transaction(fn)`
 * runs the app's statement and the credit together there (tested below on both databases).
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createFrank, type Frank, FrankError } from "@frank/host/embed"
import type pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DATABASE_URL, freshSchema, startReceiver } from "./support.js"

const settings = {
  pepper: "test-pepper-0123456789abcdef",
  publicBaseUrl: "https://app.example",
  allowPrivateNetwork: true,
  worker: { pollIntervalMs: 60_000 }
}
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

if (DATABASE_URL !== undefined) {
  const url = DATABASE_URL
  describe("inTransaction on PostgreSQL", () => {
    let db: Awaited<ReturnType<typeof freshSchema>>
    let pool: pg.Pool
    let frank: Frank
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    let partnerId: string
    const count = async (text: string, values: Array<unknown>) => Number((await pool.query(text, values)).rows[0].n)
    const events = () => count("SELECT count(*) AS n FROM webhook_events WHERE partner_id = $1", [partnerId])
    const orders = (id: string) => count("SELECT count(*) AS n FROM app_orders WHERE id = $1", [id])

    beforeAll(async () => {
      db = await freshSchema(url)
      pool = db.pool()
      await pool.query("CREATE TABLE app_orders (id text PRIMARY KEY, amount_minor bigint NOT NULL)")
      receiver = await startReceiver()
      frank = await createFrank({ ...settings, pool, schema: db.schema })
      partnerId = (await frank.partners.create("Shop")).id
      await frank.endpoints.create(partnerId, { url: receiver.url, eventTypes: ["billing.topup.confirmed"] })
      await frank.worker.start()
    })
    afterAll(async () => {
      await frank?.close()
      await receiver?.close()
      await db?.drop()
    })

    it("commits the app's row, the credit and its event together; the commit wakes the worker", async () => {
      const client = await pool.connect()
      try {
        await client.query("BEGIN")
        await client.query("INSERT INTO app_orders (id, amount_minor) VALUES ('order-1', 5000)")
        const tx = frank.inTransaction(client)
        await tx.ledger.credit(partnerId, { kind: "topup", amountMinor: 5_000, reference: "order-1" })
        // Inside the transaction the credit is there; outside nothing is yet.
        expect((await tx.ledger.balance(partnerId)).total).toBe(50)
        expect((await frank.ledger.balance(partnerId)).total).toBe(0)
        expect([await events(), await orders("order-1")]).toEqual([0, 0])
        await sleep(800)
        expect(receiver.received).toHaveLength(0)
        const committedAt = Date.now()
        await client.query("COMMIT")
        await receiver.waitFor(1, 10_000)
        expect(receiver.received[0]!.at - committedAt).toBeLessThan(10_000)
        expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ eventType: "billing.topup.confirmed" })
      } finally {
        client.release()
      }
      expect((await frank.ledger.balance(partnerId)).total).toBe(50)
      expect([await events(), await orders("order-1")]).toEqual([1, 1])
    })

    it("rolls the app's row, the credit and its event back together", async () => {
      const client = await pool.connect()
      try {
        await client.query("BEGIN")
        await client.query("INSERT INTO app_orders (id, amount_minor) VALUES ('order-2', 7000)")
        await frank
          .inTransaction(client)
          .ledger.credit(partnerId, { kind: "topup", amountMinor: 7_000, reference: "order-2" })
        await client.query("ROLLBACK")
      } finally {
        client.release()
      }
      await sleep(800)
      expect((await frank.ledger.balance(partnerId)).total).toBe(50)
      expect([await events(), await orders("order-2")]).toEqual([1, 0])
      expect(receiver.received).toHaveLength(1)
      const entries = await frank.ledger.listEntries(partnerId)
      expect(entries.items.map((e) => e.reference)).not.toContain("order-2")
    })

    it("a Frank failure inside leaves the app's transaction usable for its own rollback", async () => {
      const client = await pool.connect()
      try {
        await client.query("BEGIN")
        const tx = frank.inTransaction(client)
        const e = await tx.ledger.debit(partnerId, { amountMinor: 1_000_000 }).catch((err: unknown) => err)
        expect(e).toBeInstanceOf(FrankError)
        expect((e as FrankError).code).toBe("INSUFFICIENT_FUNDS")
        await client.query("ROLLBACK")
      } finally {
        client.release()
      }
      expect((await frank.ledger.balance(partnerId)).total).toBe(50)
    })
  })
}

describe("transaction(fn) on embedded PGlite", () => {
  let dir: string
  let frank: Frank
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "frank-tx-"))
    frank = await createFrank({ ...settings, embedded: join(dir, "db"), dataDir: dir })
    await frank.transaction((tx) =>
      tx.query("CREATE TABLE app_orders (id text PRIMARY KEY, amount_minor bigint NOT NULL)")
    )
  })
  afterAll(async () => {
    await frank?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it("inTransaction refuses: the app holds no connection to the embedded database", () => {
    expect(() => frank.inTransaction({} as pg.PoolClient)).toThrow(
      expect.objectContaining({ code: "IN_TRANSACTION_NEEDS_POSTGRES" })
    )
  })

  it("commits the app's row and the credit together, and rolls both back when fn rejects", async () => {
    const partnerId = (await frank.partners.create("Embedded shop")).id
    await frank.transaction(async (tx) => {
      await tx.query("INSERT INTO app_orders (id, amount_minor) VALUES ($1, $2)", ["order-1", 5000])
      await tx.ledger.credit(partnerId, { kind: "topup", amountMinor: 5_000, reference: "order-1" })
    })
    const failure = new Error("payment provider said no")
    const thrown = await frank
      .transaction(async (tx) => {
        await tx.query("INSERT INTO app_orders (id, amount_minor) VALUES ($1, $2)", ["order-2", 7000])
        await tx.ledger.credit(partnerId, { kind: "topup", amountMinor: 7_000, reference: "order-2" })
        throw failure
      })
      .catch((e: unknown) => e)
    expect(thrown).toBe(failure)
    const rows = await frank.transaction((tx) => tx.query<{ id: string }>("SELECT id FROM app_orders ORDER BY id"))
    expect(rows.map((r) => r.id)).toEqual(["order-1"])
    expect((await frank.ledger.balance(partnerId)).total).toBe(50)
  })

  it("queryValues answers rows as arrays in column order, two columns of one name kept apart", async () => {
    const rows = await frank.transaction((tx) =>
      tx.queryValues(
        "SELECT a.id, b.id, a.amount_minor FROM app_orders a JOIN app_orders b ON b.id = a.id WHERE a.id = $1",
        ["order-1"]
      )
    )
    expect(rows).toEqual([["order-1", "order-1", 5000]])
  })
})

/**
 * The existing backend with Frank inside, started as it runs and driven over real HTTP, on
 * PostgreSQL (a scratch database: the app owns its `public` schema) and on embedded PGlite:
 * sign-up makes a user and a partner, buying credits shows in the partner API's balance under
 * /partner-api with a key, the account page leads into the cabinet, the in-process worker
 * delivers the purchase's billing event, and a purchase the app refuses after the credit leaves
 * neither its payment row, nor the credit, nor its billing event.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startReceiver } from "../../packages/host/test/embed/support.js"
import { scratchDatabase } from "../support/scratchDatabase.js"
import { type RunningApp, type Storage, startApp } from "./server.js"

interface Opened {
  readonly storage: Storage
  readonly cleanup: () => Promise<void>
}

const scenario = (name: string, open: () => Promise<Opened>) =>
  describe(name, () => {
    let opened: Opened | undefined
    let app: RunningApp
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    let cookie = ""
    let partnerId = ""
    let key = ""

    const post = (path: string, body: unknown) =>
      fetch(`${app.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie },
        body: JSON.stringify(body)
      })
    const count = async (text: string, values: ReadonlyArray<unknown>) =>
      (await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${text}`, values))[0]!.n
    const balance = async () => {
      const res = await fetch(`${app.url}/partner-api/v1/billing/balance`, { headers: { "x-api-key": key } })
      expect(res.status).toBe(200)
      return (await res.json()) as { available: number }
    }

    beforeAll(async () => {
      receiver = await startReceiver()
      opened = await open()
      app = await startApp(opened.storage, { settings: { allowPrivateNetwork: true } })
    })
    afterAll(async () => {
      await app?.close()
      await receiver?.close()
      await opened?.cleanup()
    })

    it("keeps the app's tables alone in public and Frank's in schema frank", async () => {
      const tables = await app.db.query<{ schema: string; name: string }>(
        `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
         WHERE table_schema IN ('public', 'frank') AND table_name IN ('users', 'sessions', 'payments', 'tasks')
         ORDER BY 1, 2`
      )
      expect(tables.map((t) => `${t.schema}.${t.name}`)).toEqual([
        "frank.payments",
        "frank.sessions",
        "frank.tasks",
        "public.payments",
        "public.sessions",
        "public.tasks",
        "public.users"
      ])
    })

    it("signs up: the app's user, its first to-do and a Frank partner, and a session", async () => {
      const res = await post("/signup", { email: "ada@example.com", password: "correct horse" })
      expect(res.status).toBe(201)
      cookie = res.headers.getSetCookie()[0]!.split(";")[0]!
      expect(cookie).toMatch(/^app_session=/)
      const body = (await res.json()) as { userId: string; partnerId: string }
      partnerId = body.partnerId
      expect((await app.frank.partners.get(partnerId)).name).toBe("ada@example.com")
      expect(await count("public.tasks WHERE user_id = $1", [body.userId])).toBe(1)
      expect((await post("/signup", { email: "ada@example.com", password: "again" })).status).toBe(409)
      expect(await count("public.users", [])).toBe(1)
    })

    it("buys credits: the payment row, the credit in the partner API's balance, the event delivered", async () => {
      const issued = await post("/api-keys", {})
      expect(issued.status).toBe(201)
      key = ((await issued.json()) as { key: string }).key
      const endpoint = await fetch(`${app.url}/partner-api/v1/webhooks/endpoints`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key },
        body: JSON.stringify({ url: receiver.url, eventTypes: ["billing.topup.confirmed"] })
      })
      expect(endpoint.status).toBe(201)
      expect((await balance()).available).toBe(0)

      const bought = await post("/credits", { amountMinor: 50_000 })
      expect(bought.status).toBe(201)
      expect((await balance()).available).toBe(500)
      expect(await count("public.payments", [])).toBe(1)
      // Delivered by the worker running in this process.
      await receiver.waitFor(1, 15_000)
      expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ eventType: "billing.topup.confirmed" })
    })

    it("a purchase the app refuses after the credit rolls back the payment, the credit and its event", async () => {
      const events = () => count("frank.webhook_events WHERE partner_id = $1", [partnerId])
      expect(await events()).toBe(1)
      // 500 ₣ bought; 600 more would pass the app's 1 000 ₣ purchase cap, checked after the credit.
      const refused = await post("/credits", { amountMinor: 60_000 })
      expect(refused.status).toBe(422)
      expect(await refused.json()).toEqual({ error: "PURCHASE_CAP_REACHED" })
      expect(await count("public.payments", [])).toBe(1)
      expect((await balance()).available).toBe(500)
      expect(await events()).toBe(1)
      const entries = await app.frank.ledger.listEntries(partnerId)
      expect(entries.items.map((e) => e.amountMinor)).toEqual([50_000])
      // Within the cap a purchase goes through again.
      expect((await post("/credits", { amountMinor: 50_000 })).status).toBe(201)
      expect((await balance()).available).toBe(1000)
      expect(await events()).toBe(2)
    })

    it("signs in with the app's password and leads from the account page into the cabinet", async () => {
      const login = await fetch(`${app.url}/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "ada@example.com", password: "correct horse" })
      })
      expect(login.status).toBe(204)
      const session = login.headers.getSetCookie()[0]!.split(";")[0]!
      const page = await fetch(`${app.url}/account`, { headers: { cookie: session } })
      expect(page.status).toBe(200)
      const html = await page.text()
      expect(html).toContain("Credits: 1000 ₣")
      const href = /href="([^"]+)"/.exec(html)![1]!
      const toCabinet = await fetch(`${app.url}${href}`, { headers: { cookie: session }, redirect: "manual" })
      expect(toCabinet.status).toBe(303)
      const link = toCabinet.headers.get("location")!
      expect(link.startsWith(`${app.url}/partner-api/cabinet/sign-in?token=`)).toBe(true)
      const signIn = await fetch(link, { redirect: "manual" })
      expect(signIn.status).toBe(303)
      const cabinetCookie = signIn.headers.getSetCookie().find((c) => c.startsWith("service_token="))!
      const home = await fetch(new URL(signIn.headers.get("location")!, app.url), {
        headers: { cookie: cabinetCookie.split(";")[0]! }
      })
      expect(home.status).toBe(200)
      expect(await home.text()).toContain("<html")
      expect((await fetch(`${app.url}/account/billing`, { redirect: "manual" })).status).toBe(401)
    })
  })

// Registered only when a server exists (CI sets DATABASE_URL), as the other PostgreSQL tests.
const DATABASE_URL = process.env.DATABASE_URL
if (DATABASE_URL !== undefined)
  scenario("the existing backend on PostgreSQL", async () => {
    const db = await scratchDatabase(DATABASE_URL)
    return { storage: { databaseUrl: db.url }, cleanup: db.drop }
  })

scenario("the existing backend on embedded PGlite", async () => {
  const dir = await mkdtemp(join(tmpdir(), "frank-existing-backend-"))
  return { storage: { embedded: dir }, cleanup: () => rm(dir, { recursive: true, force: true }) }
})

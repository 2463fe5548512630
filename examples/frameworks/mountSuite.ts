/**
 * The checks every framework example passes, on embedded PGlite and, when DATABASE_URL is set, on
 * PostgreSQL in a scratch schema: a partner and key made through the facade, then the partner
 * API, a JSON body and the cabinet reached through the framework's own server.
 */
import type { Frank } from "@frank/host/embed"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DATABASE_URL, freshSchema } from "../../packages/host/test/embed/support.js"

/** A request to the example, by path (`/frank/v1/…`); redirects are not followed. */
export type Call = (path: string, init?: RequestInit) => Promise<Response>

/** An example started for a test: its Frank, how to reach it, how to stop it. */
export interface Mounted {
  readonly frank: Frank
  readonly call: Call
  readonly close: () => Promise<void>
}

/** The database part of Frank's options a test gives an example. */
export type TestDatabase = { readonly embedded: string } | { readonly databaseUrl: string; readonly schema: string }

/** Options for an example's Frank in a test: the database, a pepper, the example's base path. */
export const testSettings = { pepper: "test-pepper-0123456789abcdef", basePath: "/frank" } as const

const databases: ReadonlyArray<{ name: string; open: () => Promise<{ db: TestDatabase; drop: () => Promise<void> }> }> =
  [
    { name: "embedded PGlite", open: async () => ({ db: { embedded: "memory" }, drop: async () => {} }) },
    ...(DATABASE_URL === undefined
      ? []
      : [
          {
            name: "PostgreSQL",
            open: async () => {
              const scratch = await freshSchema(DATABASE_URL as string)
              return { db: { databaseUrl: scratch.url, schema: scratch.schema }, drop: scratch.drop }
            }
          }
        ])
  ]

const estimate = { modelId: "veo-3", prompt: "a cat on a skateboard", voiceCount: 0 }

/** The cabinet's home page, entered through the app's own login route. */
const enterCabinet = async (call: Call, partnerId: string) => {
  const login = await call(`/account/billing?partner=${partnerId}`)
  expect([302, 303, 307]).toContain(login.status)
  const link = new URL(login.headers.get("location") ?? "", "http://localhost")
  expect(link.pathname).toBe("/frank/cabinet/sign-in")
  const signIn = await call(link.pathname + link.search)
  expect(signIn.status).toBe(303)
  const cookie = signIn.headers.getSetCookie().find((c) => c.startsWith("service_token="))
  expect(cookie).toBeDefined()
  const home = new URL(signIn.headers.get("location") ?? "", "http://localhost")
  return call(home.pathname + home.search, { headers: { cookie: cookie!.split(";")[0]! } })
}

/** Registers the checks of `framework` once per database; `start` starts the example on one. */
export const mountSuites = (
  framework: string,
  start: (db: TestDatabase) => Promise<Mounted>,
  options: { readonly ownHomePage: boolean }
) => {
  for (const database of databases)
    describe(`${framework} example on ${database.name}`, () => {
      let mounted: Mounted
      let drop = async () => {}
      let partnerId: string
      let key: string
      beforeAll(async () => {
        const opened = await database.open()
        drop = opened.drop
        mounted = await start(opened.db)
        partnerId = (await mounted.frank.partners.create(`${framework} partner`)).id
        await mounted.frank.ledger.credit(partnerId, { kind: "topup", amountMinor: 12_300 })
        key = (await mounted.frank.keys.issue(partnerId, { label: framework })).raw
      })
      afterAll(async () => {
        await mounted?.close()
        await drop()
      })

      it("answers the balance to the partner's key under /frank", async () => {
        const balance = await mounted.call("/frank/v1/billing/balance", { headers: { "x-api-key": key } })
        expect(balance.status).toBe(200)
        expect(await balance.json()).toMatchObject({ available: 123, reserved: 0 })
        const anonymous = await mounted.call("/frank/v1/billing/balance")
        expect(anonymous.status).toBe(401)
        expect((await mounted.call("/frank/v1/no-such-route", { headers: { "x-api-key": key } })).status).toBe(404)
      })

      it("passes a JSON body through unread: the estimate the facade computes", async () => {
        const post = (body: unknown) =>
          mounted.call("/frank/v1/billing/pricing/estimate", {
            method: "POST",
            headers: { "x-api-key": key, "content-type": "application/json" },
            body: JSON.stringify(body)
          })
        const answer = await post(estimate)
        expect(answer.status).toBe(200)
        const expected = await mounted.frank.pricing.estimate(estimate)
        expect(await answer.json()).toMatchObject({ totalFranks: expected.totalFranks })
        expect(expected.totalFranks).toBeGreaterThan(0)
        const invalid = await post({ modelId: 5 })
        expect(invalid.status).toBe(400)
        expect(await invalid.json()).toMatchObject({ code: "VALIDATION_FAILED" })
      })

      it("leads the app's signed-in user into the cabinet, no second password", async () => {
        const home = await enterCabinet(mounted.call, partnerId)
        expect(home.status).toBe(200)
        expect(await home.text()).toContain("<html")
      })

      if (options.ownHomePage)
        it("leaves the app's own routes to the app", async () => {
          const page = await mounted.call("/")
          expect(page.status).toBe(200)
          expect(await page.text()).toBe("the app's own home page")
        })
    })
}

/** `call` for an example listening at `origin` (real HTTP); a request left unanswered fails in 10 s. */
export const overHttp =
  (origin: string): Call =>
  (path, init) =>
    fetch(`${origin}${path}`, { redirect: "manual", signal: AbortSignal.timeout(10_000), ...init })

/**
 * The admin API through `frank.fetch` when the embedder enables it (`admin: { token }`): the
 * host's own handlers under the base path, bearer-authenticated; off by default (404).
 */
import { createFrank, type Frank, FrankError } from "@frank/host/embed"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DATABASE_URL, freshSchema } from "./support.js"

const common = {
  pepper: "test-pepper-0123456789abcdef",
  publicBaseUrl: "https://app.example",
  basePath: "/frank"
} as const
const TOKEN = "admin-token-0123456789abcdef"
const at = (path: string, init?: RequestInit) => new Request(`https://app.example/frank${path}`, init)

type Database = { readonly embedded: "memory" } | { readonly databaseUrl: string; readonly schema: string }

const suite = (name: string, open: () => Promise<{ database: Database; cleanup: () => Promise<void> }>) =>
  describe(`the admin API under frank.fetch, ${name}`, () => {
    let frank: Frank
    let plain: Frank
    let settings: typeof common & Database
    let cleanup: () => Promise<void> = async () => undefined
    beforeAll(async () => {
      const opened = await open()
      cleanup = opened.cleanup
      settings = { ...common, ...opened.database }
      // One after the other: on PostgreSQL both migrate the same schema.
      frank = await createFrank({ ...settings, admin: { token: TOKEN } })
      plain = await createFrank(settings)
    })
    afterAll(async () => {
      await Promise.all([frank?.close(), plain?.close()])
      await cleanup()
    })

    it("answers the operator's token with the host's handlers, under the base path", async () => {
      const partner = await frank.partners.create("Operated")
      const bearer = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }
      const credit = await frank.fetch(
        at(`/admin/v1/partners/${partner.id}/credits`, {
          method: "POST",
          headers: bearer,
          body: JSON.stringify({ amountFranks: 25, kind: "bonus" })
        })
      )
      expect(credit.status).toBe(201)
      expect(await credit.json()).toMatchObject({ replayed: false })
      expect(await frank.ledger.balance(partner.id)).toMatchObject({ available: 25 })
      const session = await frank.fetch(
        at(`/admin/v1/partners/${partner.id}/sessions`, { method: "POST", headers: bearer, body: "{}" })
      )
      expect(session.status).toBe(201)
      const { signInUrl } = (await session.json()) as { signInUrl: string }
      expect(signInUrl.startsWith("https://app.example/frank/cabinet/sign-in?token=")).toBe(true)
      // The partner API beside it is untouched.
      const key = (await frank.keys.issue(partner.id, {})).raw
      expect((await frank.fetch(at("/v1/billing/balance", { headers: { "x-api-key": key } }))).status).toBe(200)
    })

    it("refuses a missing or wrong token with 401 ADMIN_TOKEN_INVALID", async () => {
      const body = JSON.stringify({ name: "Nobody" })
      const json = { "content-type": "application/json" }
      const missing = await frank.fetch(at("/admin/v1/partners", { method: "POST", headers: json, body }))
      expect(missing.status).toBe(401)
      expect(await missing.json()).toMatchObject({ code: "ADMIN_TOKEN_INVALID" })
      const wrong = await frank.fetch(
        at("/admin/v1/partners", { method: "POST", headers: { ...json, authorization: "Bearer nope" }, body })
      )
      expect(wrong.status).toBe(401)
    })

    it("is off without the option: 404 even with a token", async () => {
      const partner = await plain.partners.create("Plain")
      const answer = await plain.fetch(
        at(`/admin/v1/partners/${partner.id}/audit-log`, { headers: { authorization: `Bearer ${TOKEN}` } })
      )
      expect(answer.status).toBe(404)
    })

    it("refuses an empty token at start", async () => {
      const refused = await createFrank({ ...settings, admin: { token: "" } }).then(
        () => undefined,
        (e: unknown) => e
      )
      expect(refused).toBeInstanceOf(FrankError)
      expect((refused as FrankError).code).toBe("ADMIN_TOKEN_EMPTY")
    })
  })

suite("on embedded PGlite", async () => ({ database: { embedded: "memory" }, cleanup: async () => undefined }))

// Registered only when a server exists (CI sets DATABASE_URL).
if (DATABASE_URL !== undefined) {
  const url = DATABASE_URL
  suite("on PostgreSQL", async () => {
    const db = await freshSchema(url)
    return { database: { databaseUrl: db.url, schema: db.schema }, cleanup: db.drop }
  })
}

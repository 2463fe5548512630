/**
 * The Promise API on each database an embedder may give it: embedded PGlite, a PostgreSQL URL and
 * the app's own `pg` Pool. The same calls, the same answers, the API's error codes.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createFrank, type Frank, FrankError, type FrankOptions } from "@frank/host/embed"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DATABASE_URL, freshSchema } from "./support.js"

const settings = { pepper: "test-pepper-0123456789abcdef", publicBaseUrl: "https://app.example" }

const rejection = async (p: Promise<unknown>): Promise<FrankError> => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err
  )
  expect(e).toBeInstanceOf(FrankError)
  return e as FrankError
}

const suite = (name: string, open: () => Promise<{ options: FrankOptions; cleanup: () => Promise<void> }>) =>
  describe(name, () => {
    let frank: Frank
    let cleanup: () => Promise<void>
    beforeAll(async () => {
      const opened = await open()
      cleanup = opened.cleanup
      frank = await createFrank(opened.options)
    })
    afterAll(async () => {
      await frank?.close()
      await cleanup?.()
    })

    it("credits, holds and settles a task; the balance follows", async () => {
      const partner = await frank.partners.create("Acme")
      await frank.ledger.credit(partner.id, { kind: "topup", amountMinor: 10_000, reference: "pay-1" })
      const taskId = "0b9d7c1e-1f5e-4a57-9a5c-5c1d2e3f4a5b"
      await frank.ledger.reserve(partner.id, { taskId, amountMinor: 3_000 })
      expect(await frank.ledger.balance(partner.id)).toMatchObject({ available: 70, reserved: 30 })
      const settled = await frank.ledger.confirm(partner.id, { taskId, amountMinor: 2_500 })
      expect(settled.hold).toMatchObject({ status: "confirmed", chargedMinor: 2_500 })
      expect(await frank.ledger.balance(partner.id)).toMatchObject({ available: 75, reserved: 0, used: 25 })
      const page = await frank.ledger.listEntries(partner.id)
      expect(page.items.map((e) => e.type)).toContain("topup")
    })

    it("the worker expires a due bonus grant; stopped, it leaves the engine running", async () => {
      const partner = await frank.partners.create("Expiring")
      await frank.ledger.credit(partner.id, {
        kind: "bonus",
        amountMinor: 1_000,
        reference: "promo-1",
        grant: { expiresAt: Date.now() + 1_500 }
      })
      expect(await frank.ledger.balance(partner.id)).toMatchObject({ available: 10 })
      await frank.worker.start()
      try {
        let available = 10
        for (let i = 0; i < 100 && available !== 0; i++) {
          await new Promise((r) => setTimeout(r, 100))
          available = (await frank.ledger.balance(partner.id)).available
        }
        expect(available).toBe(0)
      } finally {
        await frank.worker.stop()
      }
      const page = await frank.ledger.listEntries(partner.id)
      expect(page.items.map((e) => e.type)).toContain("bonus_reversal")
      expect(await frank.ledger.balance(partner.id)).toMatchObject({ available: 0 })
    })

    it("rejects with the API's code, status and details", async () => {
      const partner = await frank.partners.create("Short")
      const taskId = "1b9d7c1e-1f5e-4a57-9a5c-5c1d2e3f4a5b"
      const short = await rejection(frank.ledger.reserve(partner.id, { taskId, amountMinor: 100 }))
      expect([short.code, short.status]).toEqual(["INSUFFICIENT_FUNDS", 402])
      expect(short.details).toMatchObject({ requiredFranks: 1, availableFranks: 0 })
      const malformed = await rejection(frank.ledger.balance("not-a-uuid"))
      expect([malformed.code, malformed.status, malformed.details.field]).toEqual([
        "VALIDATION_FAILED",
        400,
        "partnerId"
      ])
      const missing = await rejection(frank.partners.get("2b9d7c1e-1f5e-4a57-9a5c-5c1d2e3f4a5b"))
      expect([missing.code, missing.status]).toEqual(["PARTNER_NOT_FOUND", 404])
      const badUrl = await rejection(frank.endpoints.create(partner.id, { url: "ftp://nowhere" }))
      expect(badUrl.status).toBe(400)
    })

    it("prices with the catalog and validates like the API", async () => {
      const quote = await frank.pricing.estimate({ modelId: "veo-3", prompt: "a cat", voiceCount: 0 })
      expect(quote.totalFranks).toBeGreaterThan(0)
      const invalid = await rejection(frank.pricing.estimate({ modelId: 5 } as never))
      expect(invalid.code).toBe("VALIDATION_FAILED")
      expect(invalid.details.messages).toEqual(expect.arrayContaining([expect.stringContaining("modelId")]))
    })

    it("issues a key that authenticates, and a cabinet sign-in link", async () => {
      const partner = await frank.partners.create("Keys")
      const issued = await frank.keys.issue(partner.id, { label: "ci" })
      const record = await frank.keys.authenticate(issued.raw)
      expect(record.partnerId).toBe(partner.id)
      const link = await frank.sessions.signInUrl(partner.id)
      expect(link).toMatch(/^https:\/\/app\.example\/cabinet\/sign-in\?token=/)
    })
  })

suite("embedded PGlite", async () => {
  const dir = await mkdtemp(join(tmpdir(), "frank-embed-"))
  return {
    options: { ...settings, embedded: join(dir, "db"), dataDir: dir },
    cleanup: () => rm(dir, { recursive: true, force: true })
  }
})

// Registered only when a server exists (CI sets DATABASE_URL).
if (DATABASE_URL !== undefined) {
  const url = DATABASE_URL
  suite("PostgreSQL by URL", async () => {
    const db = await freshSchema(url)
    return { options: { ...settings, databaseUrl: db.url, schema: db.schema }, cleanup: db.drop }
  })
  suite("PostgreSQL on the app's pool", async () => {
    const db = await freshSchema(url)
    return { options: { ...settings, pool: db.pool(), schema: db.schema }, cleanup: db.drop }
  })
}

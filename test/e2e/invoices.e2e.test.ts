/**
 * End-to-end: legal-entity invoices through the real host process (embedded PGlite), as a
 * partner's accountant does it with curl: save the company profile, issue an invoice, download
 * its PDF, pay it at the sandbox bank, refresh, see the balance rise and the event arrive.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { extractText, getDocumentProxy } from "unpdf"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"

let host: RunningHost
let receiver: Server
const received: Array<{ eventType: string; eventId: string; data: Record<string, unknown> }> = []

const admin = () => ({ authorization: `Bearer ${host.adminToken}` })
let nextIp = 1
/** The host trusts X-Forwarded-For here, so each test counts against per-IP limits on its own. */
const freshIp = () => `10.78.0.${nextIp++}`

const profile = {
  companyName: "ООО «Ромашка»",
  inn: "7707083893",
  kpp: "773601001",
  legalAddress: "117997, г. Москва, ул. Вавилова, д. 19",
  email: "buh@romashka.example"
}

const newPartner = async (name: string) => {
  const p = await call(host, "POST", "/admin/v1/partners", { headers: admin(), body: { name } })
  expect(p.status, p.text).toBe(201)
  const s = await call(host, "POST", `/admin/v1/partners/${p.json.id}/sessions`, { headers: admin(), body: {} })
  const cookie = { cookie: `service_token=${s.json.token}` }
  const full = await call(host, "POST", "/v1/billing/api-keys", { headers: cookie, body: { label: "accounting" } })
  expect(full.status, full.text).toBe(201)
  const reader = await call(host, "POST", "/v1/billing/api-keys", {
    headers: cookie,
    body: { label: "reports", scopes: ["billing:read"] }
  })
  expect(reader.status, reader.text).toBe(201)
  const ip = freshIp()
  return {
    id: p.json.id as string,
    key: { "x-api-key": full.json.key as string, "x-forwarded-for": ip },
    reader: { "x-api-key": reader.json.key as string, "x-forwarded-for": ip }
  }
}

const waitFor = async <A>(what: string, probe: () => A | undefined, timeoutMs = 20_000): Promise<A> => {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = probe()
    if (value !== undefined) return value
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = ""
    req.on("data", (c) => {
      body += c
    })
    req.on("end", () => {
      received.push(JSON.parse(body))
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done))
  host = await spawnHost({ FRANK_ALLOW_PRIVATE_NETWORK: "true", FRANK_TRUST_PROXY: "true" })
}, 120_000)

afterAll(async () => {
  expect(await host?.stop()).toBe(0)
  await new Promise((done) => receiver?.close(done))
}, 60_000)

describe("legal invoices through the host", () => {
  it("profile → invoice → PDF → paid at the bank → refresh → balance rises → status_changed delivered", async () => {
    const partner = await newPartner("Romashka LLC")
    const hook = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers: partner.key,
      body: {
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
        eventTypes: ["billing.invoice.status_changed", "billing.topup.confirmed"]
      }
    })
    expect(hook.status, hook.text).toBe(201)

    const empty = await call(host, "GET", "/v1/billing/legal-invoices/profile", { headers: partner.reader })
    expect(empty.status).toBe(200)
    expect(empty.json).toMatchObject({ revision: 0, companyName: null })
    const saved = await call(host, "PUT", "/v1/billing/legal-invoices/profile", {
      headers: partner.key,
      body: { ...profile, expectedProfileRevision: 0 }
    })
    expect(saved.status, saved.text).toBe(200)
    expect(saved.json).toMatchObject({ ...profile, revision: 1, ogrn: null })

    const created = await call(host, "POST", "/v1/billing/legal-invoices/create", {
      headers: partner.key,
      body: { amountRub: 12345, expectedProfileRevision: 1, comment: "Пополнение по договору № 42" }
    })
    expect(created.status, created.text).toBe(201)
    const invoice = created.json
    expect(invoice).toMatchObject({
      status: "issued",
      amountRub: 12345,
      amountFranks: 12345,
      profileRevision: 1,
      creditedAt: null,
      transactionId: null
    })
    expect(invoice.pdfUrl).toBe(`/v1/billing/legal-invoices/${invoice.id}/pdf`)

    const pdf = await fetch(host.baseUrl + invoice.pdfUrl, { headers: partner.reader })
    expect(pdf.status).toBe(200)
    expect(pdf.headers.get("content-type")).toBe("application/pdf")
    expect(pdf.headers.get("content-disposition")).toMatch(/^inline; filename="invoice-\d+\.pdf"$/)
    const doc = await getDocumentProxy(new Uint8Array(await pdf.arrayBuffer()), { verbosity: 0 })
    const { totalPages, text } = await extractText(doc, { mergePages: true })
    await doc.destroy()
    expect(totalPages).toBeGreaterThanOrEqual(1)
    const flat = text.replace(/\s+/g, " ")
    expect(flat).toContain("12 345,00")
    expect(flat).toContain("ООО «Ромашка»")
    expect(flat).toContain(`№ ${invoice.number}`)

    const before = await call(host, "GET", "/v1/billing/balance", { headers: partner.reader })
    expect(before.json.total).toBe(0)

    const paid = await call(host, "POST", `/admin/v1/sandbox/invoices/${invoice.id}/pay`, { headers: admin() })
    expect(paid.status, paid.text).toBe(200)
    expect(paid.json).toMatchObject({ invoiceId: invoice.id, bankStatus: "paid", changed: true })

    const refreshed = await call(host, "POST", `/v1/billing/legal-invoices/${invoice.id}/refresh`, {
      headers: partner.reader
    })
    expect(refreshed.status, refreshed.text).toBe(200)
    expect(refreshed.json.status).toBe("paid")
    expect(refreshed.json.transactionId).toBeTruthy()
    expect(refreshed.json.creditedAt).toBeTruthy()

    const after = await call(host, "GET", "/v1/billing/balance", { headers: partner.reader })
    expect(after.json.total).toBe(12345)
    const topups = await call(host, "GET", "/v1/billing/transactions?attribution=company", { headers: partner.reader })
    expect(topups.json.items).toHaveLength(1)
    expect(topups.json.items[0]).toMatchObject({
      id: refreshed.json.transactionId,
      type: "topup",
      amount: 12345,
      attribution: "company"
    })

    // Paying again at the bank and refreshing again change nothing.
    expect(
      (await call(host, "POST", `/admin/v1/sandbox/invoices/${invoice.id}/pay`, { headers: admin() })).json.changed
    ).toBe(false)
    expect(
      (await call(host, "POST", `/v1/billing/legal-invoices/${invoice.id}/refresh`, { headers: partner.reader })).json
        .status
    ).toBe("paid")
    expect((await call(host, "GET", "/v1/billing/balance", { headers: partner.reader })).json.total).toBe(12345)

    const history = await call(host, "GET", "/v1/billing/legal-invoices/history?page=1&limit=10", {
      headers: partner.reader
    })
    expect(history.json).toMatchObject({ page: 1, limit: 10, total: 1 })
    expect(history.json.items[0]).toMatchObject({ id: invoice.id, status: "paid" })

    const event = await waitFor("billing.invoice.status_changed at the receiver", () =>
      received.find((e) => e.eventType === "billing.invoice.status_changed" && e.data.invoiceId === invoice.id)
    )
    expect(event.data).toEqual({ invoiceId: invoice.id, status: "paid", previousStatus: "issued", amountRub: 12345 })
    const topup = await waitFor("billing.topup.confirmed at the receiver", () =>
      received.find((e) => e.eventType === "billing.topup.confirmed" && e.data.paymentId === invoice.id)
    )
    expect(topup.data).toMatchObject({ transactionId: refreshed.json.transactionId, amountFranks: 12345 })
    const deliveries = await call(host, "GET", "/v1/webhooks/deliveries", { headers: partner.key })
    expect(deliveries.json.deliveries.map((d: { eventType: string }) => d.eventType).sort()).toEqual([
      "billing.invoice.status_changed",
      "billing.topup.confirmed"
    ])
  })

  it("the SBP link opens the bank's page; paying there reaches Frank through the bank's notice", async () => {
    const partner = await newPartner("SBP LLC")
    await call(host, "PUT", "/v1/billing/legal-invoices/profile", {
      headers: partner.key,
      body: { ...profile, expectedProfileRevision: 0 }
    })
    const invoice = (
      await call(host, "POST", "/v1/billing/legal-invoices/create", {
        headers: partner.key,
        body: { amountRub: 500, expectedProfileRevision: 1 }
      })
    ).json
    const link = await call(host, "POST", `/v1/billing/legal-invoices/${invoice.id}/sbp-link`, { headers: partner.key })
    expect(link.status, link.text).toBe(200)
    expect(link.json.url).toMatch(new RegExp(`^${host.baseUrl}/sandbox/bank/sbp/sbx_[0-9a-f]+$`))
    const page = await fetch(link.json.url)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain("500,00 ₽")
    const action = /action="([^"]+)"/.exec(html)?.[1]
    expect(action).toBeDefined()
    const pay = await fetch(host.baseUrl + action, { method: "POST" })
    expect(pay.status).toBe(200)
    expect(await pay.text()).toContain("Оплата прошла")
    // No refresh: the bank's notice already made Frank ask and credit.
    const history = await call(host, "GET", "/v1/billing/legal-invoices/history", { headers: partner.reader })
    expect(history.json.items[0]).toMatchObject({ id: invoice.id, status: "paid" })
    expect((await call(host, "GET", "/v1/billing/balance", { headers: partner.reader })).json.total).toBe(500)
    // A paid invoice has no payment link any more.
    const again = await call(host, "POST", `/v1/billing/legal-invoices/${invoice.id}/sbp-link`, {
      headers: partner.key
    })
    expect(again.status).toBe(409)
    expect(again.json).toMatchObject({ statusCode: 409, code: "INVOICE_NOT_PAYABLE" })
  })

  it("HTTP contract: revision race (one 200, one 409), every violation at once, scopes, unknown ids, per-IP limit", async () => {
    const partner = await newPartner("Contract LLC")
    await call(host, "PUT", "/v1/billing/legal-invoices/profile", {
      headers: partner.key,
      body: { ...profile, expectedProfileRevision: 0 }
    })
    const race = await Promise.all(
      ["+7 495 111-11-11", "+7 495 222-22-22"].map((phone) =>
        call(host, "PUT", "/v1/billing/legal-invoices/profile", {
          headers: partner.key,
          body: { ...profile, phone, expectedProfileRevision: 1 }
        })
      )
    )
    expect(race.map((r) => r.status).sort()).toEqual([200, 409])
    expect(race.find((r) => r.status === 409)?.json).toMatchObject({
      statusCode: 409,
      code: "COMPANY_PROFILE_REVISION_CONFLICT"
    })

    const invalid = await call(host, "PUT", "/v1/billing/legal-invoices/profile", {
      headers: partner.key,
      body: { companyName: "", inn: "1234567890", email: "nope", expectedProfileRevision: 2, unknownField: true }
    })
    expect(invalid.status).toBe(400)
    expect(invalid.json.code).toBe("VALIDATION_FAILED")
    expect(invalid.json.message).toEqual(
      expect.arrayContaining([
        "companyName: required",
        expect.stringContaining("inn:"),
        "legalAddress: required",
        expect.stringContaining("email:")
      ])
    )

    const badCreate = await call(host, "POST", "/v1/billing/legal-invoices/create", {
      headers: partner.key,
      body: { amountRub: 0, comment: "x".repeat(141) }
    })
    expect(badCreate.status).toBe(400)
    expect(badCreate.json.message.length).toBeGreaterThanOrEqual(3)

    // A restricted key reads but cannot save, issue or ask for a payment link.
    expect(
      (await call(host, "GET", "/v1/billing/legal-invoices/profile", { headers: partner.reader })).json.revision
    ).toBe(2)
    for (const [method, path] of [
      ["PUT", "/v1/billing/legal-invoices/profile"],
      ["POST", "/v1/billing/legal-invoices/create"],
      ["POST", "/v1/billing/legal-invoices/00000000-0000-4000-8000-000000000000/sbp-link"]
    ] as const) {
      const r = await call(host, method, path, {
        headers: partner.reader,
        body: { amountRub: 1, expectedProfileRevision: 2 }
      })
      expect(r.status, `${method} ${path}`).toBe(403)
      expect(r.json.code).toBe("API_KEY_SCOPE_REQUIRED")
    }
    const missing = await call(
      host,
      "POST",
      "/v1/billing/legal-invoices/00000000-0000-4000-8000-000000000000/refresh",
      { headers: partner.reader }
    )
    expect(missing.status).toBe(404)
    expect(missing.json.code).toBe("INVOICE_NOT_FOUND")
    expect(
      (await call(host, "GET", "/v1/billing/legal-invoices/not-an-id/pdf", { headers: partner.reader })).status
    ).toBe(404)

    // Spec "Limits": invoice create, 3 per minute per IP.
    const ip = freshIp()
    const creates = []
    for (let i = 0; i < 4; i++)
      creates.push(
        await call(host, "POST", "/v1/billing/legal-invoices/create", {
          headers: { ...partner.key, "x-forwarded-for": ip },
          body: { amountRub: 10 + i, expectedProfileRevision: 2 }
        })
      )
    expect(creates.map((r) => r.status)).toEqual([201, 201, 201, 429])
    expect(creates[3]?.json.code).toBe("RATE_LIMITED")
    expect(Number(creates[3]?.headers.get("retry-after"))).toBeGreaterThan(0)
  })
})

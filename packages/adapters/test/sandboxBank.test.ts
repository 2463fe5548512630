/**
 * The sandbox bank on embedded PGlite: a real invoice PDF (parsed back with pdf.js through
 * unpdf: pages, Cyrillic text, amount, amount in words, company name), the bank-side statuses
 * (expiry on read, pay after expiry, refusals), the SBP link and page.
 */
import { randomUUID } from "node:crypto"
import { Ids, Invoices } from "@frank/core"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { extractText, getDocumentProxy } from "unpdf"
import { SandboxBank, TestDatabase } from "../src/index.js"
import { testPartner } from "@frank/core/testing"

const T0 = Date.UTC(2026, 10, 22, 9, 0, 0)
const BASE = "http://127.0.0.1:8080"

const payer: Invoices.CompanyRequisites = {
  companyName: "ООО «Ромашка и Партнёры»",
  inn: "7707083893",
  kpp: "773601001",
  ogrn: null,
  legalAddress: "117997, г. Москва, ул. Вавилова, д. 19",
  postalAddress: null,
  email: "buh@romashka.example",
  phone: null
}

const issue = (amountRub: number, comment: string | null = null) =>
  Effect.gen(function* () {
    const bank = yield* Invoices.BankGateway
    const partnerId = testPartner(`p_${randomUUID()}`)
    const invoiceId = Ids.InvoiceId.make(randomUUID())
    const issued = yield* bank.createInvoice({
      partnerId,
      invoiceId,
      amountRub,
      comment,
      payer,
      issuedAt: yield* Effect.clockWith((c) => c.currentTimeMillis)
    })
    const ref: Invoices.BankInvoiceRef = { partnerId, invoiceId, bankInvoiceId: issued.bankInvoiceId }
    return { bank, issued, ref }
  })

const pdfText = (bytes: Uint8Array) =>
  Effect.promise(async () => {
    const doc = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 })
    try {
      const { totalPages, text } = await extractText(doc, { mergePages: true })
      return { pages: totalPages, text: text.replace(/\s+/g, " ") }
    } finally {
      await doc.destroy()
    }
  })

layer(SandboxBank.layer({ publicBaseUrl: BASE }).pipe(Layer.provideMerge(TestDatabase.layerPglite())), {
  timeout: 120_000
})("sandbox bank", (it) => {
  it.effect(
    "renders a real invoice PDF: parses, has pages, carries the amount, the words, the company and the number",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const { bank, issued, ref } = yield* issue(12_345, "Пополнение по договору № 42")
        const doc = yield* bank.fetchPdf(ref)
        if (doc._tag !== "Pdf") throw new Error("the sandbox bank serves the bytes")
        expect(doc.filename).toBe(`invoice-${issued.number}.pdf`)
        expect(new TextDecoder().decode(doc.bytes.slice(0, 5))).toBe("%PDF-")
        const { pages, text } = yield* pdfText(doc.bytes)
        expect(pages).toBeGreaterThanOrEqual(1)
        expect(text).toContain("12 345,00")
        expect(text).toContain("ООО «Ромашка и Партнёры»")
        expect(text).toContain("Двенадцать тысяч триста сорок пять рублей 00 копеек")
        expect(text).toContain(`Счёт на оплату № ${issued.number} от 22 ноября 2026 г.`)
        expect(text).toContain("ИНН 7707083893")
        expect(text).toContain("Пополнение по договору № 42")
        expect(text).toContain(ref.invoiceId)
      })
  )

  it.effect(
    "numbers run on; issued until the term passes, then expired; a late payment still pays; paid and canceled refuse each other",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const sandbox = yield* SandboxBank.SandboxBank
        const a = yield* issue(100)
        const b = yield* issue(200)
        expect(Number(b.issued.number)).toBe(Number(a.issued.number) + 1)
        expect(a.issued).toMatchObject({ status: "issued", dueAt: T0 + SandboxBank.SANDBOX_TERM_MS })
        expect(yield* a.bank.fetchStatus(a.ref)).toEqual({ status: "issued" })
        yield* TestClock.adjust(SandboxBank.SANDBOX_TERM_MS + 1)
        expect(yield* a.bank.fetchStatus(a.ref)).toEqual({ status: "expired" })
        // By Frank's id or by the bank's.
        const paid = yield* sandbox.settle(a.ref.invoiceId, "pay")
        expect(paid).toMatchObject({ changed: true, invoice: { status: "paid", bankInvoiceId: a.ref.bankInvoiceId } })
        expect(yield* a.bank.fetchStatus(a.ref)).toEqual({ status: "paid" })
        expect((yield* sandbox.settle(a.ref.bankInvoiceId, "pay")).changed).toBe(false)
        expect(yield* Effect.flip(sandbox.settle(a.ref.invoiceId, "cancel"))).toMatchObject({
          code: "SANDBOX_INVOICE_SETTLED",
          status: 409
        })
        yield* sandbox.settle(b.ref.invoiceId, "cancel")
        expect(yield* Effect.flip(sandbox.settle(b.ref.invoiceId, "pay"))).toMatchObject({
          code: "SANDBOX_INVOICE_SETTLED"
        })
        expect(yield* Effect.flip(sandbox.settle(randomUUID(), "pay"))).toMatchObject({
          code: "SANDBOX_INVOICE_NOT_FOUND",
          status: 404
        })
        // Another partner's reference finds nothing at the bank.
        expect(yield* Effect.flip(a.bank.fetchStatus({ ...a.ref, partnerId: testPartner("p_other") }))).toMatchObject({
          _tag: "BankUnavailable"
        })
      })
  )

  it.effect(
    "SBP link points at the host's page; the page shows the invoice, its QR code and a pay button until it is paid",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const sandbox = yield* SandboxBank.SandboxBank
        const { bank, ref } = yield* issue(12_345)
        const link = yield* bank.createSbpLink(ref)
        expect(link).toEqual({
          url: `${BASE}/sandbox/bank/sbp/${ref.bankInvoiceId}`,
          expiresAt: T0 + SandboxBank.SANDBOX_TERM_MS
        })
        const page = (yield* sandbox.sbpPage(ref.bankInvoiceId)) ?? ""
        expect(page).toContain("12 345,00 ₽")
        expect(page).toContain("ООО «Ромашка и Партнёры»")
        expect(page).toContain("<svg")
        expect(page).toContain(`action="/sandbox/bank/sbp/${ref.bankInvoiceId}/pay"`)
        yield* sandbox.settle(ref.bankInvoiceId, "pay")
        const after = (yield* sandbox.sbpPage(ref.bankInvoiceId, "Оплата прошла")) ?? ""
        expect(after).not.toContain("<form")
        expect(after).toContain("Оплачен")
        expect(yield* sandbox.sbpPage("sbx_unknown")).toBeUndefined()
        expect(yield* Effect.flip(bank.createSbpLink(ref))).toMatchObject({ _tag: "BankUnavailable" })
      })
  )
})

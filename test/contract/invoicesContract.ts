/**
 * The legal-invoice contract: the same cases against every store set (memory, PGlite, Postgres),
 * with the scripted bank, under TestClock. It covers the company profile and its revision race,
 * issuing, history, the bank's status reports (duplicated, reordered, concurrent), crediting
 * exactly once, and the events written with each change. A store is done when it passes all.
 */
import { randomUUID as uuid } from "node:crypto"
import { expect, layer } from "@effect/vitest"
import { Events, Ids, Invoices, Ledger, Webhooks } from "@frank/core"
import {
  type EngineStores,
  MemoryBank,
  ScriptedReceiver,
  Simulation,
  SimulationEngine,
  testPartner
} from "@frank/core/testing"
import { Effect, Either, Layer, Option, TestClock } from "effect"
import { type CompanyProfileStore, InvoiceStore } from "@frank/core/stores"

const T0 = Date.UTC(2026, 10, 22, 9, 0, 0)

export type InvoiceContractStores = EngineStores | InvoiceStore | CompanyProfileStore

export const romashka: Invoices.ProfileInput = {
  companyName: "ООО «Ромашка»",
  inn: "7707083893",
  kpp: "773601001",
  ogrn: "1027700132195",
  legalAddress: "117997, г. Москва, ул. Вавилова, д. 19",
  email: "buh@romashka.example",
  expectedProfileRevision: 0
}

const engine = (stores: Layer.Layer<InvoiceContractStores, unknown>) =>
  Invoices.Invoices.layer.pipe(
    Layer.provideMerge(MemoryBank.layer),
    Layer.provideMerge(SimulationEngine({ stores })),
    Layer.provideMerge(stores)
  )

/** A fresh partner with a saved profile, and a webhook endpoint that receives every event. */
const setup = Effect.gen(function* () {
  yield* TestClock.setTime(T0)
  const invoices = yield* Invoices.Invoices
  const partnerId = testPartner(`p_${uuid()}`)
  const url = `https://receiver-${uuid().slice(0, 8)}.example/hook`
  yield* (yield* Webhooks.Webhooks).createEndpoint(partnerId, { url })
  const profile = yield* invoices.saveProfile(partnerId, romashka)
  return { invoices, partnerId, url, profile }
})

const eventsOf = (partnerId: Ids.PartnerId) =>
  Effect.flatMap(Webhooks.Webhooks, (w) =>
    Effect.map(w.listDeliveries(partnerId, {}, 100, undefined), (p) => p.deliveries.map((d) => d.eventType).sort())
  )

const bodiesAt = (url: string) =>
  Effect.gen(function* () {
    yield* (yield* Simulation).runDue
    const received = yield* (yield* ScriptedReceiver).received
    return received
      .filter((r) => r.url === url)
      .map((r) => JSON.parse(r.body) as { eventId: string; eventType: string; data: Record<string, unknown> })
  })

export interface InvoiceContractOptions {
  /** SQL stores roll a failed status change back together with the credit it made. */
  readonly transactional: boolean
}

export const invoicesContract = (
  name: string,
  stores: Layer.Layer<InvoiceContractStores, unknown>,
  options: InvoiceContractOptions
) => {
  layer(engine(stores), { timeout: 180_000 })(`legal invoices on ${name}`, (it) => {
    it.effect(
      "profile: first save at revision 0 makes revision 1; each save +1; a stale revision is refused with the current one",
      () =>
        Effect.gen(function* () {
          const invoices = yield* Invoices.Invoices
          const partnerId = testPartner(`p_${uuid()}`)
          expect(yield* invoices.getProfile(partnerId)).toBeUndefined()
          const tooEarly = yield* Effect.flip(
            invoices.saveProfile(partnerId, { ...romashka, expectedProfileRevision: 1 })
          )
          expect(tooEarly).toMatchObject({
            _tag: "ProfileRevisionConflict",
            code: "COMPANY_PROFILE_REVISION_CONFLICT",
            currentRevision: 0
          })
          const first = yield* invoices.saveProfile(partnerId, { ...romashka, inn: " 7707 083 893 " })
          expect(first).toMatchObject({
            revision: 1,
            inn: "7707083893",
            companyName: "ООО «Ромашка»",
            postalAddress: null,
            phone: null
          })
          const second = yield* invoices.saveProfile(partnerId, {
            ...romashka,
            email: "new@romashka.example",
            expectedProfileRevision: 1
          })
          expect(second).toMatchObject({ revision: 2, email: "new@romashka.example" })
          const stale = yield* Effect.flip(invoices.saveProfile(partnerId, { ...romashka, expectedProfileRevision: 1 }))
          expect(stale).toMatchObject({ _tag: "ProfileRevisionConflict", status: 409, currentRevision: 2 })
          expect(yield* invoices.getProfile(partnerId)).toMatchObject({ revision: 2, email: "new@romashka.example" })
          // Another partner's profile is its own.
          expect(yield* invoices.getProfile(testPartner(`p_${uuid()}`))).toBeUndefined()
        })
    )

    it.effect("profile race: saves from the same revision, concurrently: exactly one wins, the others get 409", () =>
      Effect.gen(function* () {
        const invoices = yield* Invoices.Invoices
        const partnerId = testPartner(`p_${uuid()}`)
        yield* invoices.saveProfile(partnerId, romashka)
        const attempts = yield* Effect.all(
          Array.from({ length: 8 }, (_, i) =>
            Effect.either(
              invoices.saveProfile(partnerId, { ...romashka, phone: `+7 495 000-00-0${i}`, expectedProfileRevision: 1 })
            )
          ),
          { concurrency: "unbounded" }
        )
        const won = attempts.filter(Either.isRight)
        const lost = attempts.filter(Either.isLeft)
        expect(won).toHaveLength(1)
        expect(lost.map((l) => l.left._tag)).toEqual(Array(7).fill("ProfileRevisionConflict"))
        const current = yield* invoices.getProfile(partnerId)
        expect(current?.revision).toBe(2)
        expect(current?.phone).toBe(won[0]?.right.phone)
        // Two first saves race too.
        const fresh = testPartner(`p_${uuid()}`)
        const firsts = yield* Effect.all(
          [Effect.either(invoices.saveProfile(fresh, romashka)), Effect.either(invoices.saveProfile(fresh, romashka))],
          {
            concurrency: "unbounded"
          }
        )
        expect(firsts.filter(Either.isRight)).toHaveLength(1)
      })
    )

    it.effect("profile validation lists every violation at once and saves nothing", () =>
      Effect.gen(function* () {
        const invoices = yield* Invoices.Invoices
        const partnerId = testPartner(`p_${uuid()}`)
        const e = yield* Effect.flip(
          invoices.saveProfile(partnerId, { inn: "7707083894", kpp: "12", email: "not-an-email", ogrn: "123" })
        )
        expect(e._tag).toBe("ProfileInvalid")
        const messages = e._tag === "ProfileInvalid" ? e.messages : []
        expect(messages).toEqual(
          expect.arrayContaining([
            "companyName: required",
            "inn: control digit does not match (not a valid INN)",
            expect.stringContaining("kpp:"),
            expect.stringContaining("ogrn:"),
            "legalAddress: required",
            expect.stringContaining("email:"),
            expect.stringContaining("expectedProfileRevision: required")
          ])
        )
        expect(yield* invoices.getProfile(partnerId)).toBeUndefined()
      })
    )

    it.effect("issue: needs a profile and its current revision; keeps the requisites it was issued for", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const invoices = yield* Invoices.Invoices
        const partnerId = testPartner(`p_${uuid()}`)
        expect(
          yield* Effect.flip(invoices.create(partnerId, { amountRub: 100, expectedProfileRevision: 1 }))
        ).toMatchObject({
          code: "COMPANY_PROFILE_REQUIRED",
          status: 409
        })
        yield* invoices.saveProfile(partnerId, romashka)
        const stale = yield* Effect.flip(invoices.create(partnerId, { amountRub: 100, expectedProfileRevision: 2 }))
        expect(stale).toMatchObject({ code: "COMPANY_PROFILE_REVISION_CONFLICT", currentRevision: 1 })
        const invalid = yield* Effect.flip(
          invoices.create(partnerId, { amountRub: 100_001, expectedProfileRevision: 0, comment: "x".repeat(141) })
        )
        expect(invalid._tag === "InvoiceRequestInvalid" ? invalid.messages : []).toHaveLength(3)

        const invoice = yield* invoices.create(partnerId, {
          amountRub: 12_345,
          expectedProfileRevision: 1,
          comment: "  по договору 42 "
        })
        expect(invoice).toMatchObject({
          partnerId,
          status: "issued",
          amountRub: 12_345,
          comment: "по договору 42",
          profileRevision: 1,
          payer: { companyName: "ООО «Ромашка»", inn: "7707083893", kpp: "773601001" },
          createdAt: T0,
          creditedAt: null,
          transactionId: null
        })
        expect(invoice.dueAt).toBeGreaterThan(T0)
        expect(invoice.number.length).toBeGreaterThan(0)
        yield* invoices.saveProfile(partnerId, {
          ...romashka,
          companyName: "ООО «Ромашка-2»",
          expectedProfileRevision: 1
        })
        expect((yield* invoices.get(partnerId, invoice.id)).payer.companyName).toBe("ООО «Ромашка»")
        // Issuing is not an event; only status changes are.
        expect(yield* eventsOf(partnerId)).toEqual([])
      })
    )

    it.effect("history: newest first, paged with page/limit and a total; a foreign or malformed id is not found", () =>
      Effect.gen(function* () {
        const { invoices, partnerId } = yield* setup
        const ids: Ids.InvoiceId[] = []
        for (const amountRub of [10, 20, 30, 40, 50]) {
          ids.push((yield* invoices.create(partnerId, { amountRub, expectedProfileRevision: 1 })).id)
          yield* TestClock.adjust("1 minute")
        }
        const first = yield* invoices.history(partnerId, 1, 2)
        expect(first).toMatchObject({ page: 1, limit: 2, total: 5 })
        expect(first.items.map((i) => i.amountRub)).toEqual([50, 40])
        const last = yield* invoices.history(partnerId, 3, 2)
        expect(last.items.map((i) => i.amountRub)).toEqual([10])
        expect((yield* invoices.history(partnerId)).limit).toBe(20)
        expect((yield* invoices.history(testPartner(`p_${uuid()}`))).total).toBe(0)
        const stranger = testPartner(`p_${uuid()}`)
        expect(yield* Effect.flip(invoices.get(stranger, ids[0]!))).toMatchObject({
          code: "INVOICE_NOT_FOUND",
          status: 404
        })
        expect(yield* Effect.flip(invoices.refresh(stranger, ids[0]!))).toMatchObject({
          code: "INVOICE_NOT_FOUND"
        })
        // A malformed id names no invoice: decoded at the edge, it never reaches the service.
        expect(Ids.parseId(Ids.InvoiceId)("not-a-uuid")).toEqual(Option.none())
      })
    )

    it.effect(
      "paid at the bank: refresh credits the amount once (company top-up) and emits status_changed and topup.confirmed",
      () =>
        Effect.gen(function* () {
          const { invoices, partnerId, url } = yield* setup
          const ledger = yield* Ledger.Ledger
          const bank = yield* MemoryBank
          const invoice = yield* invoices.create(partnerId, { amountRub: 12_345, expectedProfileRevision: 1 })
          // Nothing happened at the bank yet: refresh changes nothing.
          expect((yield* invoices.refresh(partnerId, invoice.id)).status).toBe("issued")
          yield* bank.report(invoice.id, "paid")
          yield* TestClock.adjust("10 minutes")
          const paid = yield* invoices.refresh(partnerId, invoice.id)
          expect(paid).toMatchObject({ status: "paid", creditedAt: T0 + 600_000 })
          expect(paid.transactionId).not.toBeNull()
          // Repeated reports are harmless.
          yield* invoices.refresh(partnerId, invoice.id)
          yield* invoices.bankNotice(partnerId, invoice.id)
          yield* invoices.applyBankStatus(partnerId, invoice.id, "paid")
          expect((yield* ledger.balance(partnerId)).total).toBe(12_345)
          const entries = yield* ledger.listEntries(partnerId, {}, 0, 10)
          expect(entries.items).toHaveLength(1)
          expect(entries.items[0]).toMatchObject({
            id: paid.transactionId,
            kind: "topup",
            attribution: "company",
            reference: invoice.id,
            amountMinor: 1_234_500
          })
          expect(yield* eventsOf(partnerId)).toEqual(["billing.invoice.status_changed", "billing.topup.confirmed"])
          const bodies = yield* bodiesAt(url)
          const changed = bodies.find((b) => b.eventType === "billing.invoice.status_changed")
          expect(changed).toMatchObject({
            eventId: Events.sourceEventId(partnerId, "billing.invoice.status_changed", `${invoice.id}:paid`),
            data: { invoiceId: invoice.id, status: "paid", previousStatus: "issued", amountRub: 12_345 }
          })
          expect(bodies.find((b) => b.eventType === "billing.topup.confirmed")?.data).toEqual({
            transactionId: paid.transactionId,
            paymentId: invoice.id,
            amountFranks: 12_345
          })
        })
    )

    it.effect("concurrent paid reports credit exactly once and emit one status change", () =>
      Effect.gen(function* () {
        const { invoices, partnerId } = yield* setup
        const bank = yield* MemoryBank
        const invoice = yield* invoices.create(partnerId, { amountRub: 500, expectedProfileRevision: 1 })
        yield* bank.report(invoice.id, "paid")
        const results = yield* Effect.all(
          Array.from({ length: 12 }, (_, i) =>
            i % 2 === 0
              ? invoices.refresh(partnerId, invoice.id)
              : invoices.applyBankStatus(partnerId, invoice.id, "paid")
          ),
          { concurrency: "unbounded" }
        )
        expect(new Set(results.map((r) => r.status))).toEqual(new Set(["paid"]))
        expect(new Set(results.map((r) => r.transactionId)).size).toBe(1)
        expect((yield* (yield* Ledger.Ledger).balance(partnerId)).total).toBe(500)
        expect(yield* eventsOf(partnerId)).toEqual(["billing.invoice.status_changed", "billing.topup.confirmed"])
      })
    )

    it.effect(
      "reordered reports: expired, then a stale issued (ignored), then a late payment credits once; after cancel a payment is refused",
      () =>
        Effect.gen(function* () {
          const { invoices, partnerId } = yield* setup
          const ledger = yield* Ledger.Ledger
          const late = yield* invoices.create(partnerId, { amountRub: 700, expectedProfileRevision: 1 })
          expect((yield* invoices.applyBankStatus(partnerId, late.id, "expired")).status).toBe("expired")
          expect((yield* invoices.applyBankStatus(partnerId, late.id, "issued")).status).toBe("expired")
          expect((yield* invoices.applyBankStatus(partnerId, late.id, "paid")).status).toBe("paid")
          expect((yield* invoices.applyBankStatus(partnerId, late.id, "canceled")).status).toBe("paid")
          expect((yield* invoices.applyBankStatus(partnerId, late.id, "expired")).status).toBe("paid")

          const canceled = yield* invoices.create(partnerId, { amountRub: 900, expectedProfileRevision: 1 })
          expect((yield* invoices.applyBankStatus(partnerId, canceled.id, "canceled")).status).toBe("canceled")
          const after = yield* invoices.applyBankStatus(partnerId, canceled.id, "paid")
          expect(after).toMatchObject({ status: "canceled", transactionId: null })
          expect(yield* Effect.flip(invoices.sbpLink(partnerId, canceled.id))).toMatchObject({
            code: "INVOICE_NOT_PAYABLE",
            status: 409
          })

          expect((yield* ledger.balance(partnerId)).total).toBe(700)
          // One event per change: expired and paid of the first, canceled of the second, and the credit.
          expect(yield* eventsOf(partnerId)).toEqual([
            "billing.invoice.status_changed",
            "billing.invoice.status_changed",
            "billing.invoice.status_changed",
            "billing.topup.confirmed"
          ])
        })
    )

    it.effect("PDF and SBP link come from the bank; a bank that is down fails the call and issues nothing", () =>
      Effect.gen(function* () {
        const { invoices, partnerId } = yield* setup
        const bank = yield* MemoryBank
        const invoice = yield* invoices.create(partnerId, { amountRub: 300, expectedProfileRevision: 1 })
        expect(yield* invoices.pdf(partnerId, invoice.id)).toEqual({
          _tag: "Redirect",
          url: `https://bank.test/invoices/${invoice.bankInvoiceId}.pdf`
        })
        expect((yield* invoices.sbpLink(partnerId, invoice.id)).url).toBe(
          `https://bank.test/sbp/${invoice.bankInvoiceId}`
        )
        yield* bank.setAvailable(false)
        const down = yield* Effect.flip(invoices.create(partnerId, { amountRub: 400, expectedProfileRevision: 1 }))
        expect(down._tag).toBe("BankUnavailable")
        expect(yield* Effect.flip(invoices.refresh(partnerId, invoice.id))).toMatchObject({ _tag: "BankUnavailable" })
        yield* bank.setAvailable(true)
        expect((yield* invoices.history(partnerId)).total).toBe(1)
      })
    )

    if (options.transactional)
      it.effect("a status change that fails after crediting rolls back the credit and the status together", () =>
        Effect.gen(function* () {
          const { invoices, partnerId } = yield* setup
          const ledger = yield* Ledger.Ledger
          const invoice = yield* invoices.create(partnerId, { amountRub: 250, expectedProfileRevision: 1 })
          const store = yield* InvoiceStore
          const failed = yield* Effect.either(
            store.modify(partnerId, invoice.id, (current) =>
              Effect.gen(function* () {
                yield* ledger.credit(partnerId, {
                  kind: "topup",
                  amountMinor: 25_000,
                  attribution: "company",
                  reference: current.id
                })
                return yield* Effect.fail("boom" as const)
              })
            )
          )
          expect(failed).toEqual(Either.left("boom"))
          expect((yield* ledger.balance(partnerId)).total).toBe(0)
          expect((yield* invoices.get(partnerId, invoice.id)).status).toBe("issued")
          // The real path still works afterwards, once.
          expect((yield* invoices.applyBankStatus(partnerId, invoice.id, "paid")).status).toBe("paid")
          expect((yield* ledger.balance(partnerId)).total).toBe(250)
        })
      )
  })
}

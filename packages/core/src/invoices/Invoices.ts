/**
 * The legal-invoice service behind the partner API: the company profile, issuing invoices through
 * the bank, their history, PDF, SBP link, and taking the bank's status in.
 *
 * Money path: when the bank reports an invoice paid, one transaction (InvoiceStore.modify) moves
 * the invoice to `paid`, credits the ledger (kind `topup`, attribution `company`, reference = the
 * invoice id) and writes `billing.invoice.status_changed` to the outbox. The invoice row lock
 * serializes concurrent reports; the second one sees `paid` and changes nothing, and the ledger's
 * reference idempotency backs that up. The ledger's own credit event, `billing.topup.confirmed`
 * with `paymentId` = the invoice id, is written in the same transaction.
 */
import { Clock, Context, Effect, Layer } from "effect"
import { InvoiceId, type PartnerId } from "../EntityIds.js"
import { Ids } from "../internal/ids.js"
import { Ledger } from "../ledger/Ledger.js"
import type { StoreError } from "../StoreError.js"
import { Outbox } from "../events/Outbox.js"
import { BankGateway, type BankInvoiceRef, type InvoiceDocument, type SbpLink } from "./BankGateway.js"
import { type CompanyProfile, requisitesOf } from "./CompanyProfile.js"
import { CompanyProfileStore } from "./CompanyProfileStore.js"
import { type Invoice, MAX_COMMENT_LENGTH, MAX_INVOICE_RUB, MIN_INVOICE_RUB, MINOR_PER_RUB, moved } from "./Invoice.js"
import {
  type BankUnavailable,
  InvoiceNotFound,
  InvoiceNotPayable,
  InvoiceRequestInvalid,
  ProfileInvalid,
  ProfileRequired,
  ProfileRevisionConflict
} from "./InvoiceError.js"
import { statusChangedEvent } from "./internal/invoiceEvents.js"
import { type InvoiceStatus, isPayable, transition } from "./internal/InvoiceState.js"
import { InvoiceStore } from "./InvoiceStore.js"
import { type ProfileInput, validateProfileIssues } from "./validateProfile.js"

export interface CreateInvoiceInput {
  readonly amountRub: number
  readonly expectedProfileRevision: number
  readonly comment?: string | null | undefined
}

export interface InvoiceHistory {
  readonly items: ReadonlyArray<Invoice>
  readonly page: number
  readonly limit: number
  readonly total: number
}

/** Spec "Limits": page size 1..100, default 20. */
export const DEFAULT_INVOICE_PAGE_SIZE = 20
export const MAX_INVOICE_PAGE_SIZE = 100

export interface InvoicesShape {
  readonly getProfile: (partnerId: PartnerId) => Effect.Effect<CompanyProfile | undefined, StoreError>
  readonly saveProfile: (
    partnerId: PartnerId,
    input: ProfileInput
  ) => Effect.Effect<CompanyProfile, ProfileInvalid | ProfileRevisionConflict | StoreError>
  readonly create: (
    partnerId: PartnerId,
    input: CreateInvoiceInput
  ) => Effect.Effect<
    Invoice,
    InvoiceRequestInvalid | ProfileRequired | ProfileRevisionConflict | BankUnavailable | StoreError
  >
  readonly history: (partnerId: PartnerId, page?: number, limit?: number) => Effect.Effect<InvoiceHistory, StoreError>
  readonly get: (partnerId: PartnerId, id: InvoiceId) => Effect.Effect<Invoice, InvoiceNotFound | StoreError>
  readonly pdf: (
    partnerId: PartnerId,
    id: InvoiceId
  ) => Effect.Effect<InvoiceDocument, InvoiceNotFound | BankUnavailable | StoreError>
  /** Asks the bank for the invoice's status and applies it. */
  readonly refresh: (
    partnerId: PartnerId,
    id: InvoiceId
  ) => Effect.Effect<Invoice, InvoiceNotFound | BankUnavailable | StoreError>
  readonly sbpLink: (
    partnerId: PartnerId,
    id: InvoiceId
  ) => Effect.Effect<SbpLink, InvoiceNotFound | InvoiceNotPayable | BankUnavailable | StoreError>
  /**
   * The bank says something happened to this invoice. The notice carries no status Frank would
   * trust: it is a prompt to `refresh`, exactly as a partner's refresh is.
   */
  readonly bankNotice: (
    partnerId: PartnerId,
    invoiceId: InvoiceId
  ) => Effect.Effect<Invoice, InvoiceNotFound | BankUnavailable | StoreError>
  /**
   * Applies a status the bank reported (what `refresh` does after asking). Repeated, reordered
   * and concurrent reports are harmless: the state machine refuses what is not a legal move.
   */
  readonly applyBankStatus: (
    partnerId: PartnerId,
    id: InvoiceId,
    reported: InvoiceStatus
  ) => Effect.Effect<Invoice, InvoiceNotFound | StoreError>
}

const refOf = (i: Invoice): BankInvoiceRef => ({
  partnerId: i.partnerId,
  invoiceId: i.id,
  bankInvoiceId: i.bankInvoiceId
})

const checkCreate = (input: CreateInvoiceInput): ReadonlyArray<string> => {
  const problems: string[] = []
  if (!Number.isSafeInteger(input.amountRub) || input.amountRub < MIN_INVOICE_RUB || input.amountRub > MAX_INVOICE_RUB)
    problems.push(`amountRub: must be an integer between ${MIN_INVOICE_RUB} and ${MAX_INVOICE_RUB}`)
  if (!Number.isSafeInteger(input.expectedProfileRevision) || input.expectedProfileRevision < 1)
    problems.push("expectedProfileRevision: must be an integer ≥ 1")
  if (input.comment !== undefined && input.comment !== null && input.comment.length > MAX_COMMENT_LENGTH)
    problems.push(`comment: at most ${MAX_COMMENT_LENGTH} characters`)
  return problems
}

const staleMessage = (expected: number, current: number) =>
  `the company profile is at revision ${current}, not ${expected}; read it again (GET /v1/billing/legal-invoices/profile), check the requisites and retry with its revision`

/** The invoices service: issues invoices, records their payment and credits the ledger. */
export class Invoices extends Context.Tag("@frank/core/Invoices")<Invoices, InvoicesShape>() {
  static readonly layer = Layer.effect(
    Invoices,
    Effect.gen(function* () {
      const profiles = yield* CompanyProfileStore
      const store = yield* InvoiceStore
      const bank = yield* BankGateway
      const ledger = yield* Ledger
      const outbox = yield* Outbox
      const ids = yield* Ids

      const notFound = (id: string) => new InvoiceNotFound({ message: `no legal invoice ${id}` })

      const get: InvoicesShape["get"] = (partnerId, id) =>
        Effect.flatMap(store.get(partnerId, id), (found) =>
          found === undefined ? Effect.fail(notFound(id)) : Effect.succeed(found)
        )

      const saveProfile: InvoicesShape["saveProfile"] = (partnerId, input) =>
        Effect.gen(function* () {
          const checked = validateProfileIssues(input)
          if (checked._tag === "Left")
            return yield* new ProfileInvalid({
              message: "invalid company profile",
              messages: checked.left.map((i) => i.message),
              issues: checked.left
            })
          const { requisites, expectedRevision } = checked.right
          const now = yield* Clock.currentTimeMillis
          const saved = yield* profiles.save(partnerId, requisites, expectedRevision, now)
          if (saved._tag === "Stale")
            return yield* new ProfileRevisionConflict({
              message: staleMessage(expectedRevision, saved.currentRevision),
              currentRevision: saved.currentRevision
            })
          return saved.profile
        })

      const create: InvoicesShape["create"] = (partnerId, input) =>
        Effect.gen(function* () {
          const problems = checkCreate(input)
          if (problems.length > 0)
            return yield* new InvoiceRequestInvalid({ message: "invalid invoice request", messages: problems })
          const profile = yield* profiles.get(partnerId)
          if (profile === undefined)
            return yield* new ProfileRequired({
              message: "save the company profile (PUT /v1/billing/legal-invoices/profile) before issuing an invoice"
            })
          if (profile.revision !== input.expectedProfileRevision)
            return yield* new ProfileRevisionConflict({
              message: staleMessage(input.expectedProfileRevision, profile.revision),
              currentRevision: profile.revision
            })
          const id = yield* ids.nextId(InvoiceId)
          const now = yield* Clock.currentTimeMillis
          const comment =
            input.comment === undefined || input.comment === null || input.comment.trim().length === 0
              ? null
              : input.comment.trim()
          const payer = requisitesOf(profile)
          // The bank first: an invoice exists for Frank only once the bank issued it. A crash
          // between the bank's answer and the insert leaves an invoice at the bank that Frank
          // never shows (see the decisions: the bank keeps Frank's id as its external reference).
          const issued = yield* bank.createInvoice({
            partnerId,
            invoiceId: id,
            amountRub: input.amountRub,
            comment,
            payer,
            issuedAt: now
          })
          const invoice: Invoice = {
            partnerId,
            id,
            number: issued.number,
            status: issued.status,
            amountRub: input.amountRub,
            comment,
            profileRevision: profile.revision,
            payer,
            bankInvoiceId: issued.bankInvoiceId,
            createdAt: now,
            updatedAt: now,
            dueAt: issued.dueAt,
            creditedAt: null,
            transactionId: null
          }
          yield* store.insert(invoice)
          return invoice
        })

      const history: InvoicesShape["history"] = (partnerId, page = 1, limit = DEFAULT_INVOICE_PAGE_SIZE) =>
        Effect.gen(function* () {
          const p = Math.max(1, Math.floor(page))
          const l = Math.min(MAX_INVOICE_PAGE_SIZE, Math.max(1, Math.floor(limit)))
          const found = yield* store.list(partnerId, (p - 1) * l, l)
          return { items: found.items, page: p, limit: l, total: found.total }
        })

      const applyBankStatus: InvoicesShape["applyBankStatus"] = (partnerId, id, reported) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          let changed = false
          const result = yield* store.modify(partnerId, id, (current) =>
            Effect.gen(function* () {
              const t = transition(current.status, reported)
              if (t._tag !== "Moved") return { write: undefined, result: current }
              const credit =
                t.to === "paid"
                  ? yield* ledger
                      .credit(partnerId, {
                        kind: "topup",
                        amountMinor: current.amountRub * MINOR_PER_RUB,
                        attribution: "company",
                        reference: current.id,
                        note: `оплата счёта № ${current.number}`
                      })
                      .pipe(
                        Effect.map((r) => ({ transactionId: r.entry.id })),
                        // A refusal here would mean the reference was used for another movement:
                        // a bug, never a partner's mistake. Dying rolls the whole step back.
                        Effect.catchIf(
                          (e) => e._tag !== "StoreError",
                          (e) => Effect.dieMessage(`ledger refused the credit of invoice ${current.id}: ${e.message}`)
                        )
                      )
                  : undefined
              const next = moved(current, t.to, now, credit)
              yield* outbox.emit(partnerId, statusChangedEvent(next, t.from))
              changed = true
              return { write: next, result: next }
            })
          )
          if (result === undefined) return yield* Effect.fail(notFound(id))
          // After the commit: the worker may attempt the new events at once.
          if (changed) yield* outbox.wake
          return result
        })

      const refresh: InvoicesShape["refresh"] = (partnerId, id) =>
        Effect.gen(function* () {
          const invoice = yield* get(partnerId, id)
          const report = yield* bank.fetchStatus(refOf(invoice))
          return yield* applyBankStatus(partnerId, id, report.status)
        })

      return {
        getProfile: profiles.get,
        saveProfile,
        create,
        history,
        get,
        pdf: (partnerId, id) => Effect.flatMap(get(partnerId, id), (invoice) => bank.fetchPdf(refOf(invoice))),
        refresh,
        sbpLink: (partnerId, id) =>
          Effect.gen(function* () {
            const invoice = yield* get(partnerId, id)
            if (!isPayable(invoice.status))
              return yield* new InvoiceNotPayable({
                message: `invoice ${id} is ${invoice.status}; only an issued or expired invoice can be paid`
              })
            return yield* bank.createSbpLink(refOf(invoice))
          }),
        bankNotice: refresh,
        applyBankStatus
      }
    })
  )
}

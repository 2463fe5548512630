/**
 * Handlers of the legal-invoice group: thin translations between the Invoices service and the
 * views. A bank that fails answers 500 with a request id (the outcome at the bank may be unknown);
 * the cause goes to the log.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { InvoiceId } from "../../../EntityIds.js"
import { type CompanyProfile, requisitesOf } from "../../../invoices/CompanyProfile.js"
import type { Invoice } from "../../../invoices/Invoice.js"
import { InvoiceNotFound } from "../../../invoices/InvoiceError.js"
import { Invoices } from "../../../invoices/Invoices.js"
import { orApiError } from "../../errors/domainErrors.js"
import { idOr } from "../../pathIds.js"
import type { CompanyProfileView, InvoiceView } from "../../groups/InvoicesGroup.js"
import { PartnerApi } from "../../PartnerApi.js"
import { CurrentApiKey } from "../Security.js"
import { iso } from "../../../isoTime.js"

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms))

export const profileView = (p: CompanyProfile | undefined): CompanyProfileView =>
  p === undefined
    ? {
        companyName: null,
        inn: null,
        kpp: null,
        ogrn: null,
        legalAddress: null,
        postalAddress: null,
        email: null,
        phone: null,
        revision: 0,
        createdAt: null,
        updatedAt: null
      }
    : {
        ...requisitesOf(p),
        revision: p.revision,
        createdAt: iso(p.createdAt),
        updatedAt: iso(p.updatedAt)
      }

export const invoiceView = (i: Invoice): InvoiceView => ({
  id: i.id,
  number: i.number,
  status: i.status,
  amountRub: i.amountRub,
  amountFranks: i.amountRub,
  comment: i.comment,
  profileRevision: i.profileRevision,
  payer: { companyName: i.payer.companyName, inn: i.payer.inn, kpp: i.payer.kpp },
  createdAt: iso(i.createdAt),
  updatedAt: iso(i.updatedAt),
  dueAt: isoOrNull(i.dueAt),
  creditedAt: isoOrNull(i.creditedAt),
  transactionId: i.transactionId,
  pdfUrl: `/v1/billing/legal-invoices/${encodeURIComponent(i.id)}/pdf`
})

/** Domain failures to envelopes; a bank failure (like a store failure) to a 500. */
const orApi = <A, E extends { readonly _tag: string; readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  orApiError(Effect.catchIf(effect, (e) => e._tag === "BankUnavailable", Effect.die))

export const InvoicesHandlers = HttpApiBuilder.group(PartnerApi, "invoices", (handlers) =>
  Effect.gen(function* () {
    const invoices = yield* Invoices
    const partner = Effect.map(CurrentApiKey, (k) => k.partnerId)
    const invoiceId = (raw: string) =>
      orApi(idOr(InvoiceId, raw, () => new InvoiceNotFound({ message: `no legal invoice ${raw}` })))
    return handlers
      .handle("getProfile", () =>
        Effect.map(
          Effect.flatMap(partner, (p) => orApi(invoices.getProfile(p))),
          profileView
        )
      )
      .handle("saveProfile", ({ payload }) =>
        Effect.map(
          Effect.flatMap(partner, (p) => orApi(invoices.saveProfile(p, payload))),
          profileView
        )
      )
      .handle("createInvoice", ({ payload }) =>
        Effect.map(
          Effect.flatMap(partner, (p) => orApi(invoices.create(p, payload))),
          invoiceView
        )
      )
      .handle("invoiceHistory", ({ urlParams }) =>
        Effect.gen(function* () {
          const page = yield* orApi(invoices.history(yield* partner, urlParams.page, urlParams.limit))
          return { items: page.items.map(invoiceView), page: page.page, limit: page.limit, total: page.total }
        })
      )
      .handle("invoicePdf", ({ path }) =>
        Effect.gen(function* () {
          const document = yield* orApi(invoices.pdf(yield* partner, yield* invoiceId(path.id)))
          return document._tag === "Redirect"
            ? HttpServerResponse.redirect(document.url, { status: 302 })
            : HttpServerResponse.uint8Array(document.bytes, {
                contentType: "application/pdf",
                headers: {
                  "content-disposition": `inline; filename="${document.filename.replace(/[^\w.-]/g, "_")}"`,
                  "cache-control": "no-store"
                }
              })
        })
      )
      .handle("refreshInvoice", ({ path }) =>
        Effect.map(
          Effect.flatMap(Effect.zip(partner, invoiceId(path.id)), ([p, id]) => orApi(invoices.refresh(p, id))),
          invoiceView
        )
      )
      .handle("invoiceSbpLink", ({ path }) =>
        Effect.gen(function* () {
          const link = yield* orApi(invoices.sbpLink(yield* partner, yield* invoiceId(path.id)))
          return { invoiceId: path.id, url: link.url, expiresAt: isoOrNull(link.expiresAt) }
        })
      )
  })
)

/**
 * Legal-entity invoices (spec "Endpoints → Legal invoices", "Company profile"): the company
 * profile, issuing an invoice through the bank, history, PDF, refresh from the bank and the SBP
 * B2B payment link. Reading needs `billing:read`; saving the profile, issuing and SBP links are
 * for full keys only (docs/contract.md §5).
 */
import { IdempotencyClaim } from "../IdempotencyClaim.js"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { InvoiceStatus } from "../../invoices/internal/InvoiceState.js"
import { BadRequest, Conflict, NotFound } from "../errors/ApiError.js"
import { BodyInt, CoercedInt, QueryInt, requestParseOptions } from "../internal/coerce.js"
import { ApiKeyAuth, RequiredScope } from "../internal/Security.js"

const Timestamp = Schema.String.annotations({ description: "ISO 8601" })
const Text = (description: string) => Schema.NullOr(Schema.String).annotations({ description })

export const CompanyProfileView = Schema.Struct({
  companyName: Text("Full legal name; null until the first save"),
  inn: Text("ИНН: 10 digits (organisation) or 12 digits (sole proprietor)"),
  kpp: Text("КПП: organisations only"),
  ogrn: Text("ОГРН (13 digits) or ОГРНИП (15 digits)"),
  legalAddress: Text("Legal address"),
  postalAddress: Text("Postal address, when it differs"),
  email: Text("Where invoices and closing documents go"),
  phone: Text("Contact phone"),
  revision: Schema.Number.annotations({
    description:
      "Current revision: send it as expectedProfileRevision when saving or issuing; 0 while no profile was saved"
  }),
  createdAt: Schema.NullOr(Timestamp),
  updatedAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "CompanyProfile" })
export type CompanyProfileView = typeof CompanyProfileView.Type

const field = (description: string) => Schema.optional(Schema.NullOr(Schema.String)).annotations({ description })

export const SaveProfileRequest = Schema.Struct({
  companyName: field("Required; up to 300 characters"),
  inn: field("Required; 10 or 12 digits with a valid checksum"),
  kpp: field("Required for a 10-digit INN, absent for a 12-digit one; 9 characters"),
  ogrn: field("Optional; 13 digits for an organisation, 15 for a sole proprietor, checksum-valid"),
  legalAddress: field("Required; up to 500 characters"),
  postalAddress: field("Optional; up to 500 characters"),
  email: field("Required"),
  phone: field("Optional"),
  expectedProfileRevision: Schema.optional(Schema.NullOr(CoercedInt)).annotations({
    description:
      "Required: the revision from GET …/profile (0 before the first save). A stale one answers 409 COMPANY_PROFILE_REVISION_CONFLICT"
  })
}).annotations({ identifier: "SaveCompanyProfileRequest", ...requestParseOptions })

export const CreateInvoiceRequest = Schema.Struct({
  amountRub: BodyInt(1, 100_000).annotations({
    description: "Integer rubles, 1..100000; credited 1:1 as franks when paid"
  }),
  expectedProfileRevision: BodyInt(1, 2_147_483_647).annotations({
    description:
      "The profile revision whose requisites the invoice must carry; a stale one answers 409 COMPANY_PROFILE_REVISION_CONFLICT"
  }),
  comment: Schema.optional(
    Schema.NullOr(Schema.String.pipe(Schema.maxLength(140, { message: () => "must be at most 140 characters" })))
  )
}).annotations({ identifier: "CreateLegalInvoiceRequest", ...requestParseOptions })

export const InvoiceView = Schema.Struct({
  id: Schema.String,
  number: Schema.String.annotations({ description: "The number the bank printed on the invoice" }),
  status: InvoiceStatus.annotations({
    description:
      "issued → paid | canceled | expired; expired → paid (a late transfer) | canceled. paid and canceled are final"
  }),
  amountRub: Schema.Number,
  amountFranks: Schema.Number.annotations({ description: "What the payment credits: 1 RUB = 1 ₣" }),
  comment: Schema.NullOr(Schema.String),
  profileRevision: Schema.Number.annotations({
    description: "The profile revision whose requisites the invoice carries"
  }),
  payer: Schema.Struct({ companyName: Schema.String, inn: Schema.String, kpp: Schema.NullOr(Schema.String) }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  dueAt: Schema.NullOr(Timestamp).annotations({ description: "Payment term set by the bank" }),
  creditedAt: Schema.NullOr(Timestamp).annotations({ description: "When the balance was credited (status paid)" }),
  transactionId: Schema.NullOr(Schema.String).annotations({
    description: "The ledger row of the credit (status paid)"
  }),
  pdfUrl: Schema.String.annotations({ description: "Path of the invoice PDF (same API key)" })
}).annotations({ identifier: "LegalInvoice" })
export type InvoiceView = typeof InvoiceView.Type

export const InvoicePageView = Schema.Struct({
  items: Schema.Array(InvoiceView),
  page: Schema.Number,
  limit: Schema.Number,
  total: Schema.Number
}).annotations({ identifier: "LegalInvoicePage" })

export const InvoiceHistoryQuery = Schema.Struct({
  page: Schema.optional(QueryInt(1, 1_000_000)),
  limit: Schema.optional(QueryInt(1, 100))
}).annotations(requestParseOptions)

export const SbpLinkView = Schema.Struct({
  invoiceId: Schema.String,
  url: Schema.String.annotations({ description: "The SBP B2B payment link; also what the QR code encodes" }),
  expiresAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "LegalInvoiceSbpLink" })

const idParam = HttpApiSchema.param("id", Schema.String)

/** The partner API's invoice and company profile endpoints. */
export class InvoicesGroup extends HttpApiGroup.make("invoices")
  .middleware(IdempotencyClaim)
  .add(
    HttpApiEndpoint.get("getProfile", "/v1/billing/legal-invoices/profile")
      .addSuccess(CompanyProfileView)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "billing:read")
  )
  .add(
    HttpApiEndpoint.put("saveProfile", "/v1/billing/legal-invoices/profile")
      .setPayload(SaveProfileRequest)
      .addSuccess(CompanyProfileView)
      .addError(BadRequest)
      .addError(Conflict)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "full")
      .annotate(OpenApi.Description, "Creates or replaces the company profile; every violation is listed at once")
  )
  .add(
    HttpApiEndpoint.post("createInvoice", "/v1/billing/legal-invoices/create")
      .setPayload(CreateInvoiceRequest)
      .addSuccess(InvoiceView, { status: 201 })
      .addError(BadRequest)
      .addError(Conflict)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "full")
      .annotate(
        OpenApi.Description,
        "Issues an invoice through the bank. Not idempotent: after a lost answer, check the history before retrying"
      )
  )
  .add(
    HttpApiEndpoint.get("invoiceHistory", "/v1/billing/legal-invoices/history")
      .setUrlParams(InvoiceHistoryQuery)
      .addSuccess(InvoicePageView)
      .addError(BadRequest)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "billing:read")
  )
  .add(
    HttpApiEndpoint.get("invoicePdf")`/v1/billing/legal-invoices/${idParam}/pdf`
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "application/pdf" }))
      .addSuccess(HttpApiSchema.Empty(302))
      .addError(NotFound)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "billing:read")
      .annotate(
        OpenApi.Description,
        "The invoice PDF inline (200 application/pdf), or a 302 redirect to the bank's file"
      )
  )
  .add(
    HttpApiEndpoint.post("refreshInvoice")`/v1/billing/legal-invoices/${idParam}/refresh`
      .addSuccess(InvoiceView)
      .addError(NotFound)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "billing:read")
      .annotate(
        OpenApi.Description,
        "Asks the bank for the current status and applies it; a payment credits the balance once"
      )
  )
  .add(
    HttpApiEndpoint.post("invoiceSbpLink")`/v1/billing/legal-invoices/${idParam}/sbp-link`
      .addSuccess(SbpLinkView)
      .addError(NotFound)
      .addError(Conflict)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "full")
  )
  .annotate(OpenApi.Title, "Legal-entity invoices") {}

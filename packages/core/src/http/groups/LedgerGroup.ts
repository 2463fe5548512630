/**
 * Ledger rows, their CSV export and daily usage.
 */
import { IdempotencyClaim } from "../IdempotencyClaim.js"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { DailyUsage } from "../../ledger/dailyUsage.js"
import { TransactionType } from "../../ledger/Entry.js"
import { BadRequest } from "../errors/ApiError.js"
import { QueryInt, requestParseOptions } from "../internal/coerce.js"
import { ApiKeyAuth, RequiredScope } from "../internal/Security.js"

export const TransactionView = Schema.Struct({
  id: Schema.String,
  type: TransactionType,
  kind: Schema.String,
  amount: Schema.Number.annotations({ description: "₣, at most 2 decimals; negative only for debit adjustments" }),
  pricePerUnit: Schema.NullOr(Schema.Number).annotations({
    description: "₣ per billing unit, when the row prices a metered operation"
  }),
  taskId: Schema.NullOr(Schema.String),
  attribution: Schema.NullOr(Schema.Literal("company", "personal")),
  label: Schema.String,
  description: Schema.String,
  createdAt: Schema.String
}).annotations({ identifier: "Transaction" })
export type TransactionView = typeof TransactionView.Type

export const TransactionPage = Schema.Struct({
  items: Schema.Array(TransactionView),
  page: Schema.Number,
  limit: Schema.Number,
  total: Schema.Number
}).annotations({ identifier: "TransactionPage" })

const IsoDate = Schema.String.annotations({
  description: "ISO 8601 date or date-time; a date-only dateTo covers that whole UTC day"
})

const filterFields = {
  type: Schema.optional(TransactionType),
  attribution: Schema.optional(Schema.Literal("all", "company", "personal")),
  dateFrom: Schema.optional(IsoDate),
  dateTo: Schema.optional(IsoDate)
}

export const TransactionsQuery = Schema.Struct({
  ...filterFields,
  page: Schema.optional(QueryInt(1, 1_000_000)),
  limit: Schema.optional(QueryInt(1, 100))
}).annotations(requestParseOptions)

export const ExportQuery = Schema.Struct({
  ...filterFields,
  format: Schema.optional(Schema.Literal("csv"))
}).annotations(requestParseOptions)

export const UsageQuery = Schema.Struct({
  dateFrom: Schema.optional(IsoDate),
  dateTo: Schema.optional(IsoDate)
}).annotations(requestParseOptions)

/** The partner API's ledger endpoints (transactions, CSV export). */
export class LedgerGroup extends HttpApiGroup.make("ledger")
  .middleware(IdempotencyClaim)
  .add(
    HttpApiEndpoint.get("transactions", "/v1/billing/transactions")
      .setUrlParams(TransactionsQuery)
      .addSuccess(TransactionPage)
      .addError(BadRequest)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "billing:read")
  )
  .add(
    HttpApiEndpoint.get("export", "/v1/billing/transactions/export")
      .setUrlParams(ExportQuery)
      .addSuccess(HttpApiSchema.Text({ contentType: "text/csv" }))
      .addError(BadRequest)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "billing:read")
  )
  .add(
    HttpApiEndpoint.get("usageDaily", "/v1/billing/usage/daily")
      .setUrlParams(UsageQuery)
      .addSuccess(DailyUsage)
      .addError(BadRequest)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "usage:read")
  )
  .annotate(OpenApi.Title, "Ledger and usage") {}

/**
 * The partner's audit log: who changed what, newest first, by keyset cursor. Read with a cabinet
 * session or a full-access API key.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { BadRequest } from "../errors/ApiError.js"
import { QueryInt, requestParseOptions } from "../internal/coerce.js"
import { PartnerAuth, RequiredScope } from "../internal/Security.js"

/** One audit record as the API shows it. */
export const AuditRecordView = Schema.Struct({
  id: Schema.String,
  at: Schema.String.annotations({ description: "When the change was made (ISO 8601, UTC)" }),
  actor: Schema.Struct({
    type: Schema.Literal("api_key", "session", "admin", "system"),
    id: Schema.NullOr(Schema.String).annotations({ description: "The key's or session's id; null for the system" }),
    label: Schema.NullOr(Schema.String)
  }),
  action: Schema.String.annotations({ description: "`<target type>.<what happened>`, e.g. `api_key.revoked`" }),
  target: Schema.Struct({ type: Schema.String, id: Schema.String }),
  requestId: Schema.NullOr(Schema.String),
  ip: Schema.NullOr(Schema.String),
  idempotencyKey: Schema.NullOr(Schema.String),
  changes: Schema.Array(Schema.String).annotations({
    description: "Names of the fields the change set; never their values (no secret, key or token)"
  })
}).annotations({ identifier: "AuditRecord" })
/** The decoded shape of `AuditRecordView`. */
export type AuditRecordView = typeof AuditRecordView.Type

/** A page of the audit log and the cursor of the next. */
export const AuditLogPage = Schema.Struct({
  items: Schema.Array(AuditRecordView),
  nextCursor: Schema.NullOr(Schema.String).annotations({ description: "Opaque; null on the last page" })
}).annotations({ identifier: "AuditLogPage" })

/** The audit log query: action, date range, page size and cursor. */
export const AuditLogQuery = Schema.Struct({
  action: Schema.optional(
    Schema.String.pipe(Schema.maxLength(100, { message: () => "must be at most 100 characters" }))
  ).annotations({ description: "Only this action, e.g. `api_key.revoked`" }),
  dateFrom: Schema.optional(Schema.String).annotations({ description: "ISO 8601 date or date-time, inclusive" }),
  dateTo: Schema.optional(Schema.String).annotations({
    description: "ISO 8601 date or date-time; a date-only dateTo covers that whole UTC day"
  }),
  limit: Schema.optional(QueryInt(1, 100)),
  cursor: Schema.optional(Schema.String.pipe(Schema.maxLength(200)))
}).annotations(requestParseOptions)

/** The partner API's audit log endpoint. */
export class AuditGroup extends HttpApiGroup.make("audit")
  .add(
    HttpApiEndpoint.get("list", "/v1/audit-log")
      .setUrlParams(AuditLogQuery)
      .addSuccess(AuditLogPage)
      .addError(BadRequest)
      .middleware(PartnerAuth)
      .annotate(RequiredScope, "full")
  )
  .annotate(OpenApi.Title, "Audit log") {}

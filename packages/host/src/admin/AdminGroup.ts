/**
 * The operator's admin API (docs/contract.md §6), bearer-authenticated with FRANK_ADMIN_TOKEN.
 * It joins the partner API in the host's HttpApi so the OpenAPI document covers it too.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import { Access, Money, Tariffs, Time } from "@frank/core"
import {
  AuditLogPage,
  AuditLogQuery,
  BadRequest,
  Conflict,
  IdempotencyClaim,
  NotFound,
  Unauthorized
} from "@frank/core/http"
import { Schema } from "effect"
import { sandboxPaymentEndpoint } from "./sandboxPayments.js"
import { sandboxTaskEndpoint } from "./sandboxTasks.js"

export class AdminAuth extends HttpApiMiddleware.Tag<AdminAuth>()("AdminAuth", {
  failure: Unauthorized,
  security: { adminToken: HttpApiSecurity.bearer }
}) {}

const partnerId = HttpApiSchema.param("id", Schema.String)
const parse = { parseOptions: { errors: "all", onExcessProperty: "ignore" } } as const

export const CreatePartner = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" }), Schema.maxLength(200))
}).annotations(parse)
export const PartnerView = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  createdAt: Schema.String
}).annotations({ identifier: "Partner" })

export const CreateSession = Schema.Struct({
  ttlSeconds: Schema.optional(
    Schema.Int.pipe(
      Schema.between(60, Access.MAX_SESSION_TTL_SECONDS, {
        message: () => `must be an integer between 60 and ${Access.MAX_SESSION_TTL_SECONDS}`
      })
    )
  )
}).annotations(parse)
export const SessionView = Schema.Struct({
  token: Schema.String,
  expiresAt: Schema.String,
  signInUrl: Schema.String.annotations({
    description: "One-time cabinet sign-in link (15 minutes, single use); opens a session of the same lifetime"
  })
}).annotations({ identifier: "Session" })

export const AddCredit = Schema.Struct({
  amountFranks: Money.FranksAmount.pipe(Schema.filter((n) => n !== 0 || "must not be zero")),
  kind: Schema.Literal("bonus", "adjustment"),
  description: Schema.optional(Schema.String.pipe(Schema.maxLength(140))),
  reference: Schema.optional(Schema.String.pipe(Schema.maxLength(128))).annotations({
    description: "Idempotency reference: repeating a credit with the same reference changes nothing"
  }),
  expiresAt: Schema.optional(Schema.String.pipe(Schema.maxLength(64))).annotations({
    description:
      "Bonus only: ISO 8601 instant in the future; what is left unreserved of the bonus then is clawed back (billing.bonus_expired)"
  }),
  priority: Schema.optional(Schema.Int.pipe(Schema.between(0, 100))).annotations({
    description: "Bonus only: 0..100, default 50; spending draws from lower numbers first"
  })
}).annotations(parse)
export const CreditView = Schema.Struct({ transactionId: Schema.String, replayed: Schema.Boolean }).annotations({
  identifier: "Credit"
})

export const SetTariff = Schema.Struct({ assignedPlan: Tariffs.Plan }).annotations(parse)
export const TariffAssignment = Schema.Struct({ partnerId: Schema.String, assignedPlan: Tariffs.Plan })

export const LegacyKeyView = Schema.Struct({ key: Schema.String }).annotations({ identifier: "LegacyKey" })

export const AdvanceClock = Schema.Struct({
  seconds: Schema.Int.pipe(
    Schema.between(0, 366 * Time.DAY_SECONDS, {
      message: () => `must be an integer between 0 and ${366 * Time.DAY_SECONDS}`
    })
  )
}).annotations(parse)
export const ClockView = Schema.Struct({ now: Schema.String }).annotations({ identifier: "SandboxClock" })

export const SandboxInvoiceSettlement = Schema.Struct({
  invoiceId: Schema.String,
  bankInvoiceId: Schema.String,
  bankStatus: Schema.Literal("issued", "paid", "canceled", "expired").annotations({
    description: "What the sandbox bank reports now"
  }),
  changed: Schema.Boolean.annotations({ description: "False when the invoice already was in that state at the bank" }),
  status: Schema.NullOr(Schema.String).annotations({
    description: "Frank's invoice status after the bank's notice (null: Frank has no such invoice)"
  })
}).annotations({ identifier: "SandboxInvoiceSettlement" })

const invoiceRef = HttpApiSchema.param("id", Schema.String)

export class AdminGroup extends HttpApiGroup.make("admin")
  .middleware(IdempotencyClaim)
  .add(
    HttpApiEndpoint.post("createPartner", "/admin/v1/partners")
      .setPayload(CreatePartner)
      .addSuccess(PartnerView, { status: 201 })
  )
  .add(
    HttpApiEndpoint.post("createSession")`/admin/v1/partners/${partnerId}/sessions`
      .setPayload(CreateSession)
      .addSuccess(SessionView, { status: 201 })
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("addCredit")`/admin/v1/partners/${partnerId}/credits`
      .setPayload(AddCredit)
      .addSuccess(CreditView, { status: 201 })
      .addError(NotFound)
      .addError(BadRequest)
  )
  .add(
    HttpApiEndpoint.put("setTariff")`/admin/v1/partners/${partnerId}/tariff`
      .setPayload(SetTariff)
      .addSuccess(TariffAssignment)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("createLegacyKey")`/admin/v1/partners/${partnerId}/legacy-keys`
      .addSuccess(LegacyKeyView, { status: 201 })
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("auditLog")`/admin/v1/partners/${partnerId}/audit-log`
      .setUrlParams(AuditLogQuery)
      .addSuccess(AuditLogPage)
      .addError(NotFound)
      .addError(BadRequest)
      .annotate(OpenApi.Description, "The partner's audit log, as GET /v1/audit-log shows it to the partner")
  )
  .add(
    HttpApiEndpoint.post("advanceClock", "/admin/v1/sandbox/clock/advance")
      .setPayload(AdvanceClock)
      .addSuccess(ClockView)
      .addError(NotFound)
      .annotate(OpenApi.Description, "Sandbox only (FRANK_SANDBOX_CLOCK=true): moves the host's clock forward")
  )
  .add(sandboxPaymentEndpoint)
  .add(sandboxTaskEndpoint)
  .add(
    HttpApiEndpoint.post("payInvoice")`/admin/v1/sandbox/invoices/${invoiceRef}/pay`
      .addSuccess(SandboxInvoiceSettlement)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(
        OpenApi.Description,
        "Sandbox bank: the payer pays the legal invoice (Frank's invoice id or the bank's id); the bank then notifies Frank, which asks it for the status and credits the balance"
      )
  )
  .add(
    HttpApiEndpoint.post("cancelInvoice")`/admin/v1/sandbox/invoices/${invoiceRef}/cancel`
      .addSuccess(SandboxInvoiceSettlement)
      .addError(NotFound)
      .addError(Conflict)
      .annotate(OpenApi.Description, "Sandbox bank: the invoice is withdrawn at the bank; the bank then notifies Frank")
  )
  .middleware(AdminAuth)
  .annotate(OpenApi.Title, "Admin (operator only)") {}

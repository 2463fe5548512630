/**
 * Handlers of the admin API: partners, sessions, credits, tariff assignment, legacy keys, and the
 * sandbox clock.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Cabinet, SandboxBank } from "@frank/adapters"
// biome-ignore lint/correctness/noUnusedImports: the declaration emit names the sandbox tags in this layer's type through them
import type { SandboxAcquirer, SandboxGeneration } from "@frank/adapters"
import { Access, Audit, type Errors, Ids, Invoices, Ledger, Money, Tariffs, Time, WebhookSigning } from "@frank/core"
// biome-ignore lint/correctness/noUnusedImports: the declaration emit names the payment and task services in this module's inferred types through them
import type { Payments, Tasks } from "@frank/core"
import {
  apiError,
  auditQuery,
  auditRecordView,
  clientIp,
  currentRequestId,
  idOr,
  orApiError,
  SecuritySettings,
  Unauthorized
} from "@frank/core/http"
import { Effect, Either, Layer, Redacted } from "effect"
import { settleAndNotify } from "../sandbox/bankNotices.js"
import { SandboxClock } from "../sandbox/SandboxClock.js"
import { HostConfig } from "../config/HostConfig.js"
import { HostApi } from "../server/HostApi.js"
import { AdminAuth } from "./AdminGroup.js"
import { makeSandboxPaymentHandler } from "./sandboxPayments.js"
import { makeSandboxTaskHandler } from "./sandboxTasks.js"

/**
 * The grant terms of a credit: only a bonus may expire or carry a priority (top-ups, invoices
 * and adjustments never expire); the ledger checks the rest (a future instant, the range).
 */
const grantTerms = (payload: { kind: string; expiresAt?: string | undefined; priority?: number | undefined }) => {
  if (payload.expiresAt === undefined && payload.priority === undefined) return Effect.succeed(undefined)
  if (payload.kind !== "bonus")
    return Effect.fail(
      apiError(400, "VALIDATION_FAILED", ["expiresAt, priority: only a bonus may expire or carry a priority"])
    )
  const expiresAt = payload.expiresAt === undefined ? undefined : Date.parse(payload.expiresAt)
  if (expiresAt !== undefined && Number.isNaN(expiresAt))
    return Effect.fail(
      apiError(400, "VALIDATION_FAILED", ["expiresAt: an ISO 8601 instant, e.g. 2026-12-31T23:59:59Z"])
    )
  return Effect.succeed({ expiresAt, priority: payload.priority })
}

/** The operator as the audit log names it: one admin token, so one admin. */
const ADMIN_ACTOR: Audit.AuditActor = { type: "admin", id: "admin", label: "FRANK_ADMIN_TOKEN" }

/** Attributes the admin request's changes to the operator (the audit log's origin). */
const attributeToAdmin = (trustProxy: boolean) =>
  Effect.flatMap(Effect.zip(HttpServerRequest.HttpServerRequest, currentRequestId), ([request, requestId]) =>
    Audit.setAuditOrigin({
      actor: ADMIN_ACTOR,
      requestId: requestId.length > 0 ? requestId : null,
      ip: clientIp(request, trustProxy),
      idempotencyKey: Audit.auditIdempotencyKey(request.headers["idempotency-key"])
    })
  )

/** The admin token check; the client address is read as the partner API reads it (SecuritySettings). */
export const AdminAuthLive = (adminToken: Redacted.Redacted<string>) =>
  Layer.effect(
    AdminAuth,
    Effect.map(SecuritySettings, ({ trustProxy }) => ({
      adminToken: (token: Redacted.Redacted<string>) =>
        WebhookSigning.constantTimeEqual(Redacted.value(token), Redacted.value(adminToken)) &&
        Redacted.value(token).length > 0
          ? attributeToAdmin(trustProxy)
          : Effect.fail(
              new Unauthorized({
                statusCode: 401,
                code: "ADMIN_TOKEN_INVALID",
                message: "the admin API needs Authorization: Bearer <FRANK_ADMIN_TOKEN>"
              })
            )
    }))
  )

const isStoreError = (e: unknown): e is Errors.StoreError =>
  typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === "StoreError"

export const AdminHandlers = HttpApiBuilder.group(HostApi, "admin", (handlers) =>
  Effect.gen(function* () {
    const access = yield* Access.Access
    const ledger = yield* Ledger.Ledger
    const tariffs = yield* Tariffs.Tariffs
    const sandbox = yield* SandboxClock
    const { publicBaseUrl } = yield* HostConfig
    // A malformed partner id names no partner: the same 404 as an unknown one.
    const partnerId = (raw: string) =>
      orApiError(idOr(Ids.PartnerId, raw, () => new Access.PartnerNotFound({ message: `no partner ${raw}` })))
    const partner = (raw: string) => Effect.flatMap(partnerId(raw), (id) => orApiError(access.getPartner(id)))
    const sandboxPayment = yield* makeSandboxPaymentHandler
    const sandboxTask = yield* makeSandboxTaskHandler
    const bank = yield* SandboxBank.SandboxBank
    const invoices = yield* Invoices.Invoices
    const audit = yield* Audit.AuditLog
    /** Runs an admin change and, when it names a partner, its record in one transaction. */
    const audited = <A, E, R>(
      effect: Effect.Effect<A, E, R>,
      recordOf: (a: A) => readonly [Ids.PartnerId, Audit.AuditChange] | undefined
    ) =>
      audit
        .atomically(
          Effect.tap(effect, (a) => {
            const r = recordOf(a)
            return r === undefined ? Effect.void : audit.record(r[0], r[1])
          })
        )
        .pipe(Effect.catchIf(isStoreError, (e) => Effect.die(e)))
    const settleInvoice = (id: string, action: "pay" | "cancel") =>
      settleAndNotify(id, action).pipe(
        Effect.provideService(SandboxBank.SandboxBank, bank),
        Effect.provideService(Invoices.Invoices, invoices),
        Effect.catchTag("BankUnavailable", Effect.die),
        orApiError,
        Effect.map((s) => ({
          invoiceId: s.bank.invoiceId,
          bankInvoiceId: s.bank.bankInvoiceId,
          bankStatus: s.bankStatus,
          changed: s.changed,
          status: s.invoice?.status ?? null
        }))
      )
    return handlers
      .handle("createPartner", ({ payload }) =>
        Effect.map(orApiError(access.createPartner(payload.name)), (p) => ({
          id: p.id,
          name: p.name,
          createdAt: Time.iso(p.createdAt)
        }))
      )
      .handle("createSession", ({ path, payload }) =>
        Effect.gen(function* () {
          const id = yield* partnerId(path.id)
          const s = yield* orApiError(access.createSession(id, payload.ttlSeconds))
          const link = yield* orApiError(access.createSignIn(id, payload.ttlSeconds))
          return {
            token: s.token,
            expiresAt: Time.iso(s.expiresAt),
            signInUrl: Cabinet.signInUrl(publicBaseUrl, link.token)
          }
        })
      )
      .handle("addCredit", ({ path, payload }) =>
        Effect.gen(function* () {
          const { id } = yield* partner(path.id)
          const amountMinor = Money.franksToMinor(payload.amountFranks)!
          if (payload.kind === "bonus" && amountMinor < 0)
            return yield* Effect.fail(
              apiError(400, "VALIDATION_FAILED", [
                "amountFranks: a bonus must be positive; use kind adjustment to correct"
              ])
            )
          const grant = yield* grantTerms(payload)
          // The audited ledger records the credit (credit.added) with the admin as its actor.
          const r = yield* orApiError(
            ledger.credit(id, {
              kind: payload.kind,
              amountMinor,
              note: payload.description,
              reference: payload.reference,
              grant
            })
          )
          return { transactionId: r.entry.id, replayed: r.replayed }
        })
      )
      .handle("setTariff", ({ path, payload }) =>
        Effect.gen(function* () {
          const { id } = yield* partner(path.id)
          yield* audited(orApiError(tariffs.assign(id, payload.assignedPlan)), () => [
            id,
            { action: "tariff.assigned", target: { type: "partner", id }, changes: ["assignedPlan"] }
          ])
          return { partnerId: id, assignedPlan: payload.assignedPlan }
        })
      )
      .handle("auditLog", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const { id } = yield* partner(path.id)
          const parsed = auditQuery(urlParams)
          if (Either.isLeft(parsed)) return yield* Effect.fail(apiError(400, "VALIDATION_FAILED", parsed.left))
          const page = yield* Effect.orDie(audit.list(id, parsed.right.query, parsed.right.after))
          return { items: page.items.map(auditRecordView), nextCursor: page.nextCursor }
        })
      )
      .handle("payInvoice", ({ path }) => settleInvoice(path.id, "pay"))
      .handle("cancelInvoice", ({ path }) => settleInvoice(path.id, "cancel"))
      .handle("createLegacyKey", ({ path }) =>
        Effect.map(
          Effect.flatMap(partnerId(path.id), (id) => orApiError(access.issueLegacyKey(id))),
          (key) => ({ key })
        )
      )
      .handle("advanceClock", ({ payload }) =>
        sandbox.enabled
          ? Effect.map(sandbox.advance(payload.seconds * 1000), (now) => ({ now: Time.iso(now) }))
          : Effect.fail(
              apiError(
                404,
                "SANDBOX_CLOCK_DISABLED",
                "the sandbox clock is off; start the host with FRANK_SANDBOX_CLOCK=true"
              )
            )
      )
      .handle("sandboxPayment", ({ path }) =>
        audited(sandboxPayment(path.id, path.action), (r) =>
          r.changed
            ? [
                r.partnerId,
                {
                  action: `payment.sandbox_${path.action}ed`,
                  target: { type: "payment", id: r.paymentId },
                  changes: ["status"]
                }
              ]
            : undefined
        ).pipe(Effect.map(({ partnerId: _, ...view }) => view))
      )
      .handle("sandboxTask", ({ path, payload }) =>
        audited(sandboxTask(path.id, path.action, payload), (r) =>
          r.applied
            ? [
                r.partnerId,
                {
                  action: `task.sandbox_${path.action}ed`,
                  target: { type: "task", id: r.taskId },
                  changes: ["status"]
                }
              ]
            : undefined
        ).pipe(Effect.map(({ partnerId: _, taskId: __, ...view }) => view))
      )
  })
)

/**
 * Handlers of the admin API: partners, sessions, credits, tariff assignment, legacy keys, and the
 * sandbox clock.
 */
import { HttpApiBuilder } from "@effect/platform"
import { SandboxBank } from "@frank/adapters"
import {
  Access,
  constantTimeEqual,
  franksToMinor,
  Invoices,
  Ledger,
  PartnerId,
  PartnerNotFound,
  Tariffs
} from "@frank/core"
import { apiError, idOr, orApiError, Unauthorized } from "@frank/core/http"
import { Effect, Layer, Redacted } from "effect"
import { settleAndNotify } from "../sandbox/bankNotices.js"
import { SandboxClock } from "../sandbox/SandboxClock.js"
import { HostApi } from "../server/HostApi.js"
import { AdminAuth } from "./AdminGroup.js"
import { makeSandboxPaymentHandler } from "./sandboxPayments.js"
import { makeSandboxTaskHandler } from "./sandboxTasks.js"

export const AdminAuthLive = (adminToken: Redacted.Redacted<string>) =>
  Layer.succeed(AdminAuth, {
    adminToken: (token) =>
      constantTimeEqual(Redacted.value(token), Redacted.value(adminToken)) && Redacted.value(token).length > 0
        ? Effect.void
        : Effect.fail(
            new Unauthorized({
              statusCode: 401,
              code: "ADMIN_TOKEN_INVALID",
              message: "the admin API needs Authorization: Bearer <FRANK_ADMIN_TOKEN>"
            })
          )
  })

const iso = (ms: number) => new Date(ms).toISOString()

export const AdminHandlers = HttpApiBuilder.group(HostApi, "admin", (handlers) =>
  Effect.gen(function* () {
    const access = yield* Access
    const ledger = yield* Ledger
    const tariffs = yield* Tariffs
    const sandbox = yield* SandboxClock
    // A malformed partner id names no partner: the same 404 as an unknown one.
    const partnerId = (raw: string) =>
      orApiError(idOr(PartnerId, raw, () => new PartnerNotFound({ message: `no partner ${raw}` })))
    const partner = (raw: string) => Effect.flatMap(partnerId(raw), (id) => orApiError(access.getPartner(id)))
    const sandboxPayment = yield* makeSandboxPaymentHandler
    const sandboxTask = yield* makeSandboxTaskHandler
    const bank = yield* SandboxBank
    const invoices = yield* Invoices
    const settleInvoice = (id: string, action: "pay" | "cancel") =>
      settleAndNotify(id, action).pipe(
        Effect.provideService(SandboxBank, bank),
        Effect.provideService(Invoices, invoices),
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
          createdAt: iso(p.createdAt)
        }))
      )
      .handle("createSession", ({ path, payload }) =>
        Effect.map(
          Effect.flatMap(partnerId(path.id), (id) => orApiError(access.createSession(id, payload.ttlSeconds))),
          (s) => ({ token: s.token, expiresAt: iso(s.expiresAt) })
        )
      )
      .handle("addCredit", ({ path, payload }) =>
        Effect.gen(function* () {
          const { id } = yield* partner(path.id)
          const amountMinor = franksToMinor(payload.amountFranks)!
          if (payload.kind === "bonus" && amountMinor < 0)
            return yield* Effect.fail(
              apiError(400, "VALIDATION_FAILED", [
                "amountFranks: a bonus must be positive; use kind adjustment to correct"
              ])
            )
          const r = yield* orApiError(
            ledger.credit(id, {
              kind: payload.kind,
              amountMinor,
              note: payload.description,
              reference: payload.reference
            })
          )
          return { transactionId: r.entry.id, replayed: r.replayed }
        })
      )
      .handle("setTariff", ({ path, payload }) =>
        Effect.gen(function* () {
          const { id } = yield* partner(path.id)
          yield* orApiError(tariffs.assign(id, payload.assignedPlan))
          return { partnerId: id, assignedPlan: payload.assignedPlan }
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
          ? Effect.map(sandbox.advance(payload.seconds * 1000), (now) => ({ now: iso(now) }))
          : Effect.fail(
              apiError(
                404,
                "SANDBOX_CLOCK_DISABLED",
                "the sandbox clock is off; start the host with FRANK_SANDBOX_CLOCK=true"
              )
            )
      )
      .handle("sandboxPayment", ({ path }) => sandboxPayment(path.id, path.action))
      .handle("sandboxTask", ({ path, payload }) => sandboxTask(path.id, path.action, payload))
  })
)

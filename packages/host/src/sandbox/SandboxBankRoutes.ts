/**
 * The sandbox bank's SBP B2B payment page, served by the host outside the partner API: the SBP
 * link of an invoice opens it, and its button pays the invoice at the sandbox bank (which then
 * notifies Frank, see bankNotices.ts). No credentials: like a real SBP link, whoever holds the
 * unguessable link can pay, and in the sandbox no money moves.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { SandboxBank } from "@frank/adapters"
import { Invoices } from "@frank/core"
import { Effect } from "effect"
import { settleAndNotify } from "./bankNotices.js"

const html = (body: string, status = 200) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8" })

const notFound = html(
  '<!doctype html><html lang="ru"><meta charset="utf-8"><title>Счёт не найден</title><p>Счёт не найден.</p></html>',
  404
)

export const SandboxBankRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const bank = yield* SandboxBank.SandboxBank
    const invoices = yield* Invoices.Invoices
    const page = (id: string, notice?: string) =>
      Effect.map(bank.sbpPage(id, notice), (body) => (body === undefined ? notFound : html(body))).pipe(Effect.orDie)

    yield* router.get(
      `${SandboxBank.SANDBOX_SBP_PATH}/:id`,
      Effect.flatMap(HttpRouter.params, (params) => page(params.id ?? "", undefined))
    )
    yield* router.post(
      `${SandboxBank.SANDBOX_SBP_PATH}/:id/pay`,
      Effect.gen(function* () {
        const id = (yield* HttpRouter.params).id ?? ""
        if ((yield* bank.find(id).pipe(Effect.orDie)) === undefined) return notFound
        return yield* settleAndNotify(id, "pay").pipe(
          Effect.provideService(SandboxBank.SandboxBank, bank),
          Effect.provideService(Invoices.Invoices, invoices),
          Effect.flatMap((s) =>
            page(id, s.changed ? "Оплата прошла. Баланс пополнится автоматически." : "Счёт уже был оплачен.")
          ),
          Effect.catchTags({
            SandboxInvoiceSettled: (e) => page(id, e.message),
            SandboxInvoiceNotFound: () => Effect.succeed(notFound)
          }),
          Effect.orDie
        )
      })
    )
  })
)

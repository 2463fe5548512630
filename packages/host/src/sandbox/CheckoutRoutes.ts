/**
 * The sandbox acquirer's checkout pages, served by the host outside the partner API: the
 * `paymentUrl` of a top-up opens `GET /sandbox/checkout/{paymentId}`; its forms POST `…/pay` or
 * `…/decline`, the acquirer moves its record and notifies the engine (the same path as a real
 * acquirer's callback), and the browser is sent back to the page (POST/redirect/GET), which now
 * shows the new status. No credentials: like a real checkout link, whoever holds it can pay.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { SandboxAcquirer } from "@frank/adapters"
import { Ids, Payments } from "@frank/core"
import { Effect, Option } from "effect"
import { checkoutNotFoundPage, checkoutPage } from "./checkoutPage.js"

const html = (body: string, status = 200) =>
  HttpServerResponse.text(body, {
    status,
    contentType: "text/html; charset=utf-8",
    headers: { "cache-control": "no-store" }
  })

const NOTICE: Record<"paid" | "declined", string> = {
  paid: "Оплата прошла. Баланс пополнится автоматически.",
  declined: "Вы отказались от оплаты."
}

export const CheckoutRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const acquirer = yield* SandboxAcquirer.SandboxAcquirer
    const payments = yield* Payments.Payments
    const actionPath = (id: string) => (action: "pay" | "decline") => `${SandboxAcquirer.checkoutPath(id)}/${action}`

    const page = (id: Ids.PaymentId, notice?: string, status = 200) =>
      Effect.map(acquirer.find(id), (p) =>
        p === undefined ? html(checkoutNotFoundPage(), 404) : html(checkoutPage(p, actionPath(id), notice), status)
      ).pipe(Effect.orDie)

    yield* router.get(
      "/sandbox/checkout/:id",
      Effect.gen(function* () {
        const id = Option.getOrUndefined(Ids.parseId(Ids.PaymentId)((yield* HttpRouter.params).id ?? ""))
        if (id === undefined) return html(checkoutNotFoundPage(), 404)
        const request = yield* HttpServerRequest.HttpServerRequest
        const result = new URL(request.url, "http://checkout.invalid").searchParams.get("result")
        return yield* page(id, result === "paid" || result === "declined" ? NOTICE[result] : undefined)
      })
    )

    const act = (action: "pay" | "decline") =>
      Effect.gen(function* () {
        const id = Option.getOrUndefined(Ids.parseId(Ids.PaymentId)((yield* HttpRouter.params).id ?? ""))
        if (id === undefined) return html(checkoutNotFoundPage(), 404)
        return yield* SandboxAcquirer.drive(id, action).pipe(
          Effect.provideService(SandboxAcquirer.SandboxAcquirer, acquirer),
          Effect.provideService(Payments.Payments, payments),
          Effect.as(
            HttpServerResponse.redirect(
              `${SandboxAcquirer.checkoutPath(id)}?result=${action === "pay" ? "paid" : "declined"}`,
              {
                status: 303
              }
            )
          ),
          Effect.catchTags({
            PaymentNotFound: () => Effect.succeed(html(checkoutNotFoundPage(), 404)),
            PaymentTransitionRefused: (e) => page(id, e.message, 409)
          }),
          Effect.orDie
        )
      })

    yield* router.post("/sandbox/checkout/:id/pay", act("pay"))
    yield* router.post("/sandbox/checkout/:id/decline", act("decline"))
  })
)

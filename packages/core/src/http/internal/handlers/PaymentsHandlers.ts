/**
 * Handlers of the top-ups group: thin translations between the Payments service and the views.
 * An acquirer failure is a 500 (the payment may exist at the acquirer; the client retries with
 * the same Idempotency-Key, which completes it).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import type { Payment } from "../../../payments/Payment.js"
import { Payments } from "../../../payments/Payments.js"
import { orApiError } from "../../errors/domainErrors.js"
import type { PaymentView } from "../../groups/PaymentsGroup.js"
import { PartnerApi } from "../../PartnerApi.js"
import { CurrentApiKey } from "../Security.js"
import { iso } from "../../../isoTime.js"

export const paymentView = (p: Payment): PaymentView => ({
  paymentId: p.id,
  status: p.status,
  amountRub: p.amountRub,
  description: p.description,
  paymentUrl: p.paymentUrl,
  createdAt: iso(p.createdAt),
  updatedAt: iso(p.updatedAt)
})

const markReplayed = HttpApp.appendPreResponseHandler((_req, res) =>
  Effect.succeed(HttpServerResponse.setHeader(res, "idempotent-replayed", "true"))
)

export const PaymentsHandlers = HttpApiBuilder.group(PartnerApi, "payments", (handlers) =>
  Effect.gen(function* () {
    const payments = yield* Payments
    return handlers
      .handle("createPaymentLink", ({ payload, headers }) =>
        Effect.gen(function* () {
          const { partnerId } = yield* CurrentApiKey
          const link = yield* orApiError(
            payments
              .createLink(partnerId, {
                amountRub: payload.amountRub,
                description: payload.description,
                idempotencyKey: headers["idempotency-key"]
              })
              .pipe(Effect.catchTag("PaymentProviderError", (e) => Effect.die(e)))
          )
          if (link.replayed) yield* markReplayed
          return paymentView(link.payment)
        })
      )
      .handle("paymentHistory", () =>
        Effect.gen(function* () {
          const { partnerId } = yield* CurrentApiKey
          return { items: (yield* orApiError(payments.history(partnerId))).map(paymentView) }
        })
      )
  })
)

/**
 * Where an acquirer's callbacks arrive: `POST /payments/notifications`, outside the partner API
 * (the acquirer authenticates by the signature of the body, not by an API key). The raw body and
 * headers go to `Payments.receiveNotification`, which lets the configured PaymentProvider
 * authenticate and parse them; the sandbox acquirer's notifications take the same path
 * in-process. Answers: 200 `OK` when applied or harmless (repeat, stale, refused transition: a
 * retry would change nothing), 400 when not authentic, 404 for an unknown payment, 500 (the
 * acquirer retries) when the database failed.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Payments } from "@frank/core"
import { Effect } from "effect"

export const PAYMENT_NOTIFICATIONS_PATH = "/payments/notifications"

export const PaymentNotificationRoute = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const payments = yield* Payments.Payments
    yield* router.post(
      PAYMENT_NOTIFICATIONS_PATH,
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const body = yield* request.text
        const outcome = yield* payments.receiveNotification({ body, headers: request.headers })
        if (outcome.transition._tag === "Refused")
          yield* Effect.logWarning("payment notification refused by the state machine").pipe(
            Effect.annotateLogs({
              paymentId: outcome.payment.id,
              status: outcome.transition.status,
              reported: outcome.transition.reported
            })
          )
        return HttpServerResponse.text("OK")
      }).pipe(
        Effect.catchTags({
          PaymentNotificationInvalid: (e) => Effect.succeed(HttpServerResponse.text(e.message, { status: 400 })),
          PaymentNotFound: (e) => Effect.succeed(HttpServerResponse.text(e.message, { status: 404 }))
        }),
        Effect.orDie
      )
    )
  })
)

/**
 * Admin sandbox controls of top-ups (docs/contract.md §6): `POST /admin/v1/sandbox/payments/{id}/
 * {confirm|reject|cancel|fail}`. The operator acts as the sandbox acquirer's back office; the
 * acquirer then notifies the engine through the same path a real acquirer's callback takes.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { SandboxAcquirer } from "@frank/adapters"
import { Ids, Payments } from "@frank/core"
import { apiError, Conflict, idOr, NotFound, orApiError } from "@frank/core/http"
import { Effect, Schema } from "effect"

export const SandboxPaymentAction = Schema.Literal("confirm", "reject", "cancel", "fail")

export const SandboxPaymentResult = Schema.Struct({
  paymentId: Schema.String,
  status: Payments.PaymentStatus.annotations({
    description: "Frank's status of the payment after the acquirer's notifications"
  }),
  amountRub: Schema.Number,
  changed: Schema.Boolean.annotations({
    description: "False when the payment already had this status (the notification was a harmless repeat)"
  }),
  transactionId: Schema.NullOr(Schema.String).annotations({
    description: "The ledger entry this action credited (confirm), else null"
  })
}).annotations({ identifier: "SandboxPaymentResult" })

const paymentId = HttpApiSchema.param("id", Schema.String)
const action = HttpApiSchema.param("action", SandboxPaymentAction)

export const sandboxPaymentEndpoint = HttpApiEndpoint.post(
  "sandboxPayment"
)`/admin/v1/sandbox/payments/${paymentId}/${action}`
  .addSuccess(SandboxPaymentResult)
  .addError(NotFound)
  .addError(Conflict)
  .annotate(
    OpenApi.Description,
    "Sandbox acquirer: confirm, reject, cancel or fail a top-up payment (Frank's payment id). The acquirer notifies Frank exactly as a real " +
      "acquirer would; confirm credits the balance once. 409 PAYMENT_TRANSITION_REFUSED when the payment already ended otherwise."
  )

/** The handler of `sandboxPayment`; needs SandboxAcquirer.SandboxAcquirer and Payments. */
export const makeSandboxPaymentHandler = Effect.gen(function* () {
  const acquirer = yield* SandboxAcquirer.SandboxAcquirer
  const payments = yield* Payments.Payments
  return (raw: string, act: typeof SandboxPaymentAction.Type) =>
    idOr(
      Ids.PaymentId,
      raw,
      () => new Payments.PaymentNotFound({ message: `the sandbox acquirer has no payment ${raw}` })
    ).pipe(
      Effect.flatMap((id) => SandboxAcquirer.drive(id, act)),
      Effect.provideService(SandboxAcquirer.SandboxAcquirer, acquirer),
      Effect.provideService(Payments.Payments, payments),
      orApiError,
      Effect.flatMap((outcome) =>
        outcome.transition._tag === "Refused"
          ? Effect.fail(
              apiError(
                409,
                "PAYMENT_TRANSITION_REFUSED",
                `the payment is ${outcome.payment.status}; it cannot become ${outcome.transition.reported}`
              )
            )
          : Effect.succeed({
              partnerId: outcome.payment.partnerId,
              paymentId: outcome.payment.id,
              status: outcome.payment.status,
              amountRub: outcome.payment.amountRub,
              changed: outcome.transition._tag === "Moved",
              transactionId: outcome.transactionId
            })
      )
    )
})

/**
 * Top-ups (spec "Endpoints → Top-ups"): payment links and the payment history. Creating a link
 * needs a full key (no scope opens it, spec "Scope rules"); the history needs `billing:read`.
 */
import { IdempotencyClaim } from "../IdempotencyClaim.js"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import {
  PAYMENT_MAX_AMOUNT_RUB,
  PAYMENT_MAX_DESCRIPTION_LENGTH,
  PAYMENT_MAX_IDEMPOTENCY_KEY_LENGTH,
  PAYMENT_MIN_AMOUNT_RUB,
  PaymentStatus
} from "../../payments/Payment.js"
import { BadRequest, Conflict } from "../errors/ApiError.js"
import { BodyInt, requestParseOptions } from "../internal/coerce.js"
import { ApiKeyAuth, RequiredScope } from "../internal/Security.js"

const Timestamp = Schema.String.annotations({ description: "ISO 8601" })

export const PaymentView = Schema.Struct({
  paymentId: Schema.String,
  status: PaymentStatus,
  amountRub: Schema.Number.annotations({
    description: "Whole rubles; credited as the same number of franks (1 RUB = 1 ₣) once confirmed"
  }),
  description: Schema.NullOr(Schema.String),
  paymentUrl: Schema.NullOr(Schema.String).annotations({
    description: "The acquirer's checkout page; open it in the payer's browser"
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotations({ identifier: "Payment" })
export type PaymentView = typeof PaymentView.Type

export const PaymentHistoryView = Schema.Struct({ items: Schema.Array(PaymentView) }).annotations({
  identifier: "PaymentHistory"
})

export const CreatePaymentLinkRequest = Schema.Struct({
  amountRub: BodyInt(PAYMENT_MIN_AMOUNT_RUB, PAYMENT_MAX_AMOUNT_RUB),
  description: Schema.optional(
    Schema.String.pipe(
      Schema.maxLength(PAYMENT_MAX_DESCRIPTION_LENGTH, {
        message: () => `must be at most ${PAYMENT_MAX_DESCRIPTION_LENGTH} characters`
      })
    )
  )
}).annotations({ identifier: "CreatePaymentLinkRequest", ...requestParseOptions })

export const PaymentLinkHeaders = Schema.Struct({
  "idempotency-key": Schema.String.pipe(
    Schema.minLength(1, { message: () => "Idempotency-Key must not be empty" }),
    Schema.maxLength(PAYMENT_MAX_IDEMPOTENCY_KEY_LENGTH, {
      message: () => `Idempotency-Key must be at most ${PAYMENT_MAX_IDEMPOTENCY_KEY_LENGTH} characters`
    })
  )
}).annotations(requestParseOptions)

/** The partner API's payment endpoints. */
export class PaymentsGroup extends HttpApiGroup.make("payments")
  .middleware(IdempotencyClaim)
  .add(
    HttpApiEndpoint.post("createPaymentLink", "/v1/billing/payment/link")
      .setPayload(CreatePaymentLinkRequest)
      .setHeaders(PaymentLinkHeaders)
      .addSuccess(PaymentView, { status: 201 })
      .addError(BadRequest)
      .addError(Conflict)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "full")
      .annotate(
        OpenApi.Description,
        "Creates a top-up payment and answers its paymentUrl. Idempotency-Key (required, ≤ 128 chars): a repeat with the same key and amount " +
          "answers the same payment (201, header Idempotent-Replayed: true); the same key with another amount is 409 PAYMENT_IDEMPOTENCY_CONFLICT. " +
          "After a 429, 5xx or timeout retry with the original key and amount. Full-access keys only."
      )
  )
  .add(
    HttpApiEndpoint.get("paymentHistory", "/v1/billing/payment/history")
      .addSuccess(PaymentHistoryView)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "billing:read")
      .annotate(OpenApi.Description, "The last 50 top-up payments, newest first")
  )
  .annotate(OpenApi.Title, "Top-ups") {}

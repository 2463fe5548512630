/**
 * The sandbox acquirer's notification format, modelled on Russian acquirers' callbacks: a JSON
 * body with the order id, the acquirer's payment id, an upper-case status and the amount in
 * kopecks, signed with HMAC-SHA256 over the exact body bytes (`X-Sandbox-Signature:
 * sha256=<hex>`). A real acquirer adapter has its own format and signature; the engine only sees
 * the parsed `PaymentNotification`.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { Payments } from "@frank/core"
import { Effect, Either, Redacted, Schema } from "effect"

export const SIGNATURE_HEADER = "x-sandbox-signature"

const STATUS_BY_WIRE = {
  NEW: "pending",
  AUTHORIZED: "authorized",
  CONFIRMED: "confirmed",
  CANCELED: "canceled",
  REJECTED: "rejected",
  FAILED: "failed"
} as const satisfies Record<string, Payments.PaymentStatus>

type WireStatus = keyof typeof STATUS_BY_WIRE

const WIRE_BY_STATUS = Object.fromEntries(
  Object.entries(STATUS_BY_WIRE).map(([wire, status]) => [status, wire])
) as Record<Payments.PaymentStatus, WireStatus>

const Body = Schema.Struct({
  OrderId: Schema.String,
  PaymentId: Schema.String,
  Status: Schema.Literal(...(Object.keys(STATUS_BY_WIRE) as [WireStatus, ...WireStatus[]])),
  Amount: Schema.Int.pipe(Schema.nonNegative())
})

const sign = (secret: Redacted.Redacted<string>, body: string): string =>
  `sha256=${createHmac("sha256", Redacted.value(secret)).update(body, "utf8").digest("hex")}`

export interface SandboxNotice {
  readonly orderId: string
  readonly paymentId: string
  readonly status: Payments.PaymentStatus
  readonly amountRub: number
}

/** The notification the sandbox sends: body and headers exactly as an HTTP callback would carry them. */
export const encode = (secret: Redacted.Redacted<string>, n: SandboxNotice): Payments.RawNotification => {
  const body = JSON.stringify({
    OrderId: n.orderId,
    PaymentId: n.paymentId,
    Status: WIRE_BY_STATUS[n.status],
    Amount: n.amountRub * 100
  })
  return { body, headers: { "content-type": "application/json", [SIGNATURE_HEADER]: sign(secret, body) } }
}

const invalid = (message: string) =>
  new Payments.PaymentNotificationInvalid({ message: `sandbox notification refused: ${message}` })

/** Verifies the signature (constant time) before reading anything, then decodes. */
export const decode = (
  secret: Redacted.Redacted<string>,
  raw: Payments.RawNotification
): Effect.Effect<Payments.PaymentNotification, Payments.PaymentNotificationInvalid> =>
  Effect.suspend(() => {
    const given = Buffer.from(raw.headers[SIGNATURE_HEADER] ?? "", "utf8")
    const expected = Buffer.from(sign(secret, raw.body), "utf8")
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return Effect.fail(invalid(`missing or wrong ${SIGNATURE_HEADER}`))
    const parsed = Either.try(() => JSON.parse(raw.body) as unknown)
    if (Either.isLeft(parsed)) return Effect.fail(invalid("body is not JSON"))
    const decoded = Schema.decodeUnknownEither(Body)(parsed.right)
    if (Either.isLeft(decoded)) return Effect.fail(invalid("body does not match the format"))
    const b = decoded.right
    if (b.Amount % 100 !== 0) return Effect.fail(invalid("amount is not whole rubles"))
    return Effect.succeed({
      paymentId: b.OrderId,
      providerPaymentId: b.PaymentId,
      status: STATUS_BY_WIRE[b.Status],
      amountRub: b.Amount / 100
    })
  })

/**
 * The error envelope of billing, key and webhook routes: `{ statusCode, message, code }`.
 * One class per HTTP status; `statusCode` is a literal so the error union encodes to exactly one
 * status, and the client decodes each status back into its class.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"

const Message = Schema.Union(Schema.String, Schema.Array(Schema.String))

const envelope = <const S extends number>(status: S) => ({
  statusCode: Schema.Literal(status),
  message: Message,
  code: Schema.String
})

/** The 400 error envelope. */
export class BadRequest extends Schema.Class<BadRequest>("BadRequest")(
  envelope(400),
  HttpApiSchema.annotations({ status: 400, description: "Invalid request; `message` lists every violation" })
) {}
/** The 401 error envelope. */
export class Unauthorized extends Schema.Class<Unauthorized>("Unauthorized")(
  envelope(401),
  HttpApiSchema.annotations({ status: 401 })
) {}
/** The 402 error envelope. */
export class PaymentRequired extends Schema.Class<PaymentRequired>("PaymentRequired")(
  envelope(402),
  HttpApiSchema.annotations({ status: 402 })
) {}
/** The 403 error envelope. */
export class Forbidden extends Schema.Class<Forbidden>("Forbidden")(
  envelope(403),
  HttpApiSchema.annotations({ status: 403 })
) {}
/** The 404 error envelope. */
export class NotFound extends Schema.Class<NotFound>("NotFound")(
  envelope(404),
  HttpApiSchema.annotations({ status: 404 })
) {}
/** The 409 error envelope. */
export class Conflict extends Schema.Class<Conflict>("Conflict")(
  envelope(409),
  HttpApiSchema.annotations({ status: 409 })
) {}
/** The 422 error envelope: a well-formed request the server refuses to process (an idempotency key reused). */
export class UnprocessableEntity extends Schema.Class<UnprocessableEntity>("UnprocessableEntity")(
  envelope(422),
  HttpApiSchema.annotations({ status: 422 })
) {}
/** The 429 error envelope. */
export class TooManyRequests extends Schema.Class<TooManyRequests>("TooManyRequests")(
  envelope(429),
  HttpApiSchema.annotations({ status: 429, description: "Rate limit exceeded; see Retry-After" })
) {}
/** The 500 error envelope, with the request id to quote. */
export class InternalError extends Schema.Class<InternalError>("InternalError")(
  { ...envelope(500), requestId: Schema.String },
  HttpApiSchema.annotations({ status: 500, description: "Internal error; the outcome of a write may be unknown" })
) {}

/** Every envelope a handler may fail with; all are declared on the API, so any endpoint may answer them. */
export type ApiError =
  | BadRequest
  | Unauthorized
  | PaymentRequired
  | Forbidden
  | NotFound
  | Conflict
  | UnprocessableEntity
  | TooManyRequests

const byStatus = {
  400: BadRequest,
  401: Unauthorized,
  402: PaymentRequired,
  403: Forbidden,
  404: NotFound,
  409: Conflict,
  422: UnprocessableEntity,
  429: TooManyRequests
} as const
/** The HTTP statuses an API error may have. */
export type ApiErrorStatus = keyof typeof byStatus

/** Builds the envelope for a status; validation failures pass every message as an array. */
export const apiError = <S extends ApiErrorStatus>(
  status: S,
  code: string,
  message: string | ReadonlyArray<string>
): InstanceType<(typeof byStatus)[S]> => {
  const Ctor = byStatus[status] as unknown as new (fields: {
    statusCode: S
    code: string
    message: string | ReadonlyArray<string>
  }) => InstanceType<(typeof byStatus)[S]>
  return new Ctor({ statusCode: status, code, message })
}

export const validationFailed = (messages: ReadonlyArray<string>) => apiError(400, "VALIDATION_FAILED", messages)

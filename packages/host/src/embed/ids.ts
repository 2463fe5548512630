/**
 * Ids as plain strings: a Promise API caller holds them as text (from its own tables, a URL), so
 * each method decodes the ids it takes here, once, and a malformed one rejects with
 * VALIDATION_FAILED naming the argument before any store sees it.
 */
import { Ids } from "@frank/core"
import { type Brand, Effect, Option, type Schema } from "effect"
import { FrankError } from "./FrankError.js"

/** A branded id type as the caller passes it: a string. */
export type Unbrand<V> = V extends string & Brand.Brand<infer _B> ? string : V

/** An input object whose branded id fields are plain strings. */
export type Loose<T> = { readonly [K in keyof T]: Unbrand<T[K]> }

const decode =
  <A>(schema: Schema.Schema<A, string>) =>
  (field: string, raw: string): Effect.Effect<A, FrankError> =>
    Option.match(Ids.parseId(schema)(raw), {
      onNone: () =>
        Effect.fail(
          new FrankError({
            code: "VALIDATION_FAILED",
            status: 400,
            message: `${field} must be a UUID`,
            details: { field, value: raw }
          })
        ),
      onSome: Effect.succeed
    })

/** Decoders of every id the Promise API takes. */
export const ids = {
  partner: (raw: string) => decode(Ids.PartnerId)("partnerId", raw),
  task: (raw: string, field = "taskId") => decode(Ids.TaskId)(field, raw),
  key: (raw: string) => decode(Ids.KeyId)("keyId", raw),
  endpoint: (raw: string, field = "endpointId") => decode(Ids.EndpointId)(field, raw),
  delivery: (raw: string) => decode(Ids.DeliveryId)("deliveryId", raw),
  payment: (raw: string) => decode(Ids.PaymentId)("paymentId", raw),
  invoice: (raw: string) => decode(Ids.InvoiceId)("invoiceId", raw),
  file: (raw: string) => decode(Ids.StoredFileId)("fileId", raw)
}

/** Decodes an optional id field, leaving it undefined when absent. */
export const optionalId = <A>(
  raw: string | undefined,
  decodeId: (raw: string) => Effect.Effect<A, FrankError>
): Effect.Effect<A | undefined, FrankError> => (raw === undefined ? Effect.succeed(undefined) : decodeId(raw))

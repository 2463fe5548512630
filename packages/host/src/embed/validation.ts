/**
 * Input a Promise API caller passes where the partner API would decode a request body: decoded
 * with the API's own schema, and refused with the API's VALIDATION_FAILED lines.
 */
import * as HttpApiError from "@effect/platform/HttpApiError"
import { validationMessages } from "@frank/core/http"
import { Effect, Schema } from "effect"
import { FrankError } from "./FrankError.js"

/** Decodes `input` with `schema` (every violation reported), or fails with VALIDATION_FAILED (400). */
export const decodeInput = <A, I>(schema: Schema.Schema<A, I>, input: unknown): Effect.Effect<A, FrankError> =>
  Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "ignore" })(input).pipe(
    Effect.catchTag("ParseError", (e) =>
      Effect.flatMap(HttpApiError.HttpApiDecodeError.fromParseError(e), (decodeError) => {
        const messages = validationMessages(decodeError)
        return Effect.fail(
          new FrankError({
            code: "VALIDATION_FAILED",
            status: 400,
            message: messages.join("; "),
            details: { messages }
          })
        )
      })
    )
  )

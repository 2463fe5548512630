/**
 * Fields of a typed domain error that knows its machine code and HTTP status: the HTTP layer
 * copies both into the error envelope (http/errors/domainErrors.ts). Each error class fixes them as
 * literals with defaults, so constructing one needs only a message.
 */
import { Schema } from "effect"

/** The `code` and `status` fields every coded domain error carries, with their defaults. */
export const codedErrorFields = <C extends string, S extends number>(code: C, status: S) => ({
  code: Schema.optionalWith(Schema.Literal(code), { default: () => code }),
  status: Schema.optionalWith(Schema.Literal(status), { default: () => status }),
  message: Schema.String
})

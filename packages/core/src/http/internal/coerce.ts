/**
 * Request field schemas that coerce as the spec requires: "numeric strings in integer fields are
 * coerced". Query parameters arrive as strings anyway; body fields may be either.
 */
import { Schema } from "effect"

const IntFromString = Schema.NumberFromString.pipe(Schema.int({ message: () => "must be an integer" }))

/** An integer from a JSON number or a numeric string. */
export const CoercedInt = Schema.Union(Schema.Int, IntFromString).annotations({
  identifier: "Integer",
  message: () => "must be an integer"
})

/** An integer query parameter within [min, max]. */
export const QueryInt = (min: number, max: number) =>
  IntFromString.pipe(Schema.between(min, max, { message: () => `must be an integer between ${min} and ${max}` }))

/** An integer body field within [min, max], numeric strings accepted. */
export const BodyInt = (min: number, max: number) =>
  CoercedInt.pipe(Schema.between(min, max, { message: () => `must be an integer between ${min} and ${max}` }))

/** Decoding options every request schema carries: report all violations, strip unknown fields. */
export const requestParseOptions = { parseOptions: { errors: "all", onExcessProperty: "ignore" } } as const

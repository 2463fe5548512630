/**
 * Type parsing for node-postgres. `bigint` (int8) columns hold minor units, micro-unit prices,
 * sequence numbers and epoch milliseconds; pg returns them as strings by default. We parse them
 * to numbers and refuse any value outside the exact integer range instead of silently rounding
 * money: the row then fails to parse, the query fails, and the store reports a StoreError.
 */
import pg from "pg"

/** Postgres type OID of int8 / bigint (also the type of count(*)). */
export const INT8_OID = 20

export const parseInt8 = (text: string): number => {
  const n = Number(text)
  if (!Number.isSafeInteger(n))
    throw new RangeError(`int8 value ${text} is outside the exact integer range of a JS number`)
  return n
}

/** A `types` option for pg and @effect/sql-pg: int8 → safe integer, every other type as pg parses it. */
export const pgTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID && format !== "binary"
      ? parseInt8
      : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser
}

/**
 * Type parsing for node-postgres: `bigint` (int8) columns hold minor units and epoch
 * milliseconds. pg returns them as strings by default; we parse them to numbers and refuse any
 * value outside the exact integer range instead of silently rounding money.
 */
import pg from "pg"

const INT8_OID = 20

const parseInt8 = (text: string): number => {
  const n = Number(text)
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${text} is outside the exact integer range`)
  return n
}

export const pgTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID && format !== "binary" ? parseInt8 : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser
}

/**
 * Options every Frank SQL client shares, whatever serves the wire protocol (PostgreSQL or PGlite):
 * camelCase in TypeScript, snake_case in SQL, and int8 columns parsed to exact JS numbers.
 */
import { String as Str } from "effect"
import { pgTypes } from "./pgTypes.js"

export const clientOptions = {
  transformResultNames: Str.snakeToCamel,
  transformQueryNames: Str.camelToSnake,
  types: pgTypes
} as const

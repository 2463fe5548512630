/**
 * Options every Frank SQL client shares, whatever serves the wire protocol (PostgreSQL or PGlite):
 * camelCase in TypeScript, snake_case in SQL, and int8 columns parsed to exact JS numbers.
 */
import { String as Str } from "effect"
import { pgTypes } from "./pgTypes.js"

// Typed by name: an inferred type would print `import("pg-types")` into the .d.ts, and an installed
// project may resolve that to a different pg-types than the one we compiled against.
export const clientOptions: {
  readonly transformResultNames: (name: string) => string
  readonly transformQueryNames: (name: string) => string
  readonly types: typeof pgTypes
} = {
  transformResultNames: Str.snakeToCamel,
  transformQueryNames: Str.camelToSnake,
  types: pgTypes
}

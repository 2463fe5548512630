/**
 * The model check: one seed on memory stores and on SQL stores must give the same observable
 * results, step by step and in the final state. Answers the first differing line, if any.
 */
import type { SqlClient } from "@effect/sql"
import { type Context, Effect } from "effect"
import { runSeed, type SeedReport } from "./campaign.js"

export interface ModelCheck {
  readonly memory: SeedReport
  readonly sql: SeedReport
  /** Undefined when the traces agree. */
  readonly difference: string | undefined
}

export const firstDifference = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): string | undefined => {
  for (let i = 0; i < Math.max(a.length, b.length); i++)
    if (a[i] !== b[i]) return `line ${i}:\n  memory: ${a[i] ?? "(none)"}\n  sql:    ${b[i] ?? "(none)"}`
  return undefined
}

export const modelCheck = (
  seed: number,
  steps: number,
  database: Context.Context<SqlClient.SqlClient>,
  checkEvery = 1
): Effect.Effect<ModelCheck> =>
  Effect.gen(function* () {
    const memory = yield* runSeed(seed, { steps, kind: "memory" })
    const sql = yield* runSeed(seed, { steps, kind: "sql", database, checkEvery })
    return { memory, sql, difference: firstDifference(memory.trace, sql.trace) }
  })

/**
 * `npm run simulate -- --seeds N [--from S] [--steps M] [--store memory|pglite|model]`: the long
 * form of the seeded campaign. `SEED=n` runs that one seed and prints its trace. Exits 1 on a
 * violation, naming the seed that reproduces it. Memory seeds run `SEEDS_AT_ONCE` side by side.
 */
import { TestDatabase } from "@frank/adapters"
import { SqlClient } from "@effect/sql"
import { type Context, Effect, Layer } from "effect"
import { runSeed, SEEDS_AT_ONCE, type SeedReport } from "./campaign.js"
import type { StoreKind } from "./engine.js"
import { modelCheck } from "./modelCheck.js"

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback
}

const single = process.env.SEED
const from = single !== undefined ? Number(single) : Number(arg("from", "1"))
const seeds = single !== undefined ? 1 : Number(arg("seeds", "200"))
const steps = Number(arg("steps", "500"))
const checkEvery = Number(arg("check-every", "1"))
const store = arg("store", "memory") as "memory" | "pglite" | "model"

/** One seed; in `model` mode on both store kinds, answering undefined when they disagree. */
const runOne = (seed: number, kind: StoreKind, database: Context.Context<SqlClient.SqlClient> | undefined) =>
  Effect.gen(function* () {
    if (store !== "model" || database === undefined)
      return yield* runSeed(seed, { steps, kind, checkEvery, ...(database ? { database } : {}) })
    const check = yield* modelCheck(seed, steps, database, checkEvery)
    if (check.difference === undefined) return check.sql
    console.error(`seed ${seed}: memory and SQL stores disagree at ${check.difference}`)
    return undefined
  })

/** Adds a seed's faults to `totals` and prints its trace or violations; false when it broke something. */
const accepted = (report: SeedReport | undefined, totals: Record<string, number>): boolean => {
  if (report === undefined) return false
  for (const [k, n] of Object.entries(report.faults)) totals[k] = (totals[k] ?? 0) + n
  if (single !== undefined) for (const line of report.trace) console.log(line)
  if (report.violations.length === 0) return true
  console.error(
    `seed ${report.seed} broke an invariant (reproduce: SEED=${report.seed} npm run simulate -- --steps ${steps} --store ${store}):`
  )
  for (const v of report.violations) console.error(`  ${v}`)
  return false
}

const program = Effect.gen(function* () {
  const kind: StoreKind = store === "memory" ? "memory" : "sql"
  const database = kind === "sql" ? yield* Effect.map(SqlClient.SqlClient, (c) => c) : undefined
  const context = database === undefined ? undefined : yield* Effect.context<SqlClient.SqlClient>()
  const totals: Record<string, number> = {}
  const started = performance.now()
  // SQL seeds share one database and run one at a time; memory seeds in windows side by side.
  const width = kind === "memory" ? SEEDS_AT_ONCE : 1
  for (let first = from; first < from + seeds; first += width) {
    const window = Array.from({ length: Math.min(width, from + seeds - first) }, (_, i) => first + i)
    const reports = yield* Effect.forEach(window, (seed) => runOne(seed, kind, context), { concurrency: width })
    const failed = yield* Effect.sync(() => reports.some((report) => !accepted(report, totals)))
    if (failed) return 1
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  console.log(`${seeds} seeds x ${steps} steps on ${store}: every invariant held (${seconds} s)`)
  console.log(`faults injected: ${JSON.stringify(totals)}`)
  return 0
})

const database = store === "memory" ? Layer.empty : TestDatabase.layerPglite()
const code = await Effect.runPromise(
  program.pipe(Effect.provide(database as Layer.Layer<never>), Effect.orDie) as Effect.Effect<number>
)
process.exit(code)

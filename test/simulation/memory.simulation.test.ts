/**
 * The seeded campaign on memory stores: 200 seeds × 500 steps, every invariant after every step,
 * then the drain and the delivery invariants. `SEED=n` runs that seed alone (its trace is printed
 * on failure); `npm run simulate -- --seeds N` runs longer campaigns.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { runSeed, SEEDS_AT_ONCE } from "./campaign.js"

const STEPS = 500
const only = process.env.SEED === undefined ? undefined : Number(process.env.SEED)
// Chunks of 25 seeds: each test stays well inside its timeout on a loaded CI machine (50 seeds
// took over 300 s there beside the browser suites).
const chunks =
  only === undefined ? Array.from({ length: 8 }, (_, i) => [1 + 25 * i, 25] as const) : [[only, 1] as const]

describe("seeded simulation on memory stores", () => {
  for (const [from, count] of chunks)
    it.effect(
      `seeds ${from}..${from + count - 1} × ${STEPS} steps keep every invariant`,
      () =>
        Effect.gen(function* () {
          const seeds = Array.from({ length: count }, (_, i) => from + i)
          const reports = yield* Effect.forEach(seeds, (seed) => runSeed(seed, { steps: STEPS, kind: "memory" }), {
            concurrency: SEEDS_AT_ONCE
          })
          for (const report of reports) {
            if (report.violations.length > 0)
              expect.fail(
                `seed ${report.seed} (reproduce: SEED=${report.seed} npm run simulate -- --steps ${STEPS}):\n${report.violations.join("\n")}\n` +
                  `last steps:\n${report.trace.slice(-15).join("\n")}`
              )
            // The run did something: every seed moves money and delivers events under faults.
            expect(report.trace.filter((l) => / ok /.test(l)).length).toBeGreaterThan(STEPS / 4)
          }
        }),
      300_000
    )
})

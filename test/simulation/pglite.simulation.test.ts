/**
 * The seeded campaign on the SQL stores over PGlite, as a model check: each seed runs on memory
 * and on SQL, and both must give the same outcome at every step and the same final state (ids
 * included: both draw them from the seed). The SQL run checks the invariants every 10th step and
 * after the drain; an injected store failure there happens inside the transaction and rolls back.
 */
import { TestDatabase } from "@frank/adapters"
import type { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { modelCheck } from "./modelCheck.js"

const SEEDS = 20
const STEPS = 60
const only = process.env.SEED === undefined ? undefined : Number(process.env.SEED)
const seeds = only === undefined ? Array.from({ length: SEEDS }, (_, i) => 1001 + i) : [only]

layer(TestDatabase.layerPglite(), { timeout: 600_000 })("seeded simulation on PGlite against memory", (it) => {
  it.effect(
    `${seeds.length} seeds × ${STEPS} steps: the same observable results on both, every invariant held`,
    () =>
      Effect.gen(function* () {
        const database = yield* Effect.context<SqlClient.SqlClient>()
        for (const seed of seeds) {
          const check = yield* modelCheck(seed, STEPS, database, 10)
          const reproduce = `reproduce: SEED=${seed} npm run simulate -- --steps ${STEPS} --store model --check-every 10`
          if (check.difference !== undefined) expect.fail(`seed ${seed} (${reproduce}): ${check.difference}`)
          for (const report of [check.memory, check.sql])
            if (report.violations.length > 0)
              expect.fail(`seed ${seed} (${reproduce}):\n${report.violations.join("\n")}`)
          expect(check.sql.faults["store-failure"] ?? 0).toBe(check.memory.faults["store-failure"] ?? 0)
        }
      }),
    600_000
  )
})

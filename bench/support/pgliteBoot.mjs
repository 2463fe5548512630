// One embedded-database start for bench/pglite-boot, as the compiled host opens it (plain node on
// packages/adapters/dist, no loader): the pglite layer on DATA_DIR (seeded from the template, by
// initdb, or an existing directory), then the migrations. Prints one JSON line: milliseconds to
// the open database and to the migrated one, and resident memory then and after SETTLE_MS.
import { readFileSync } from "node:fs"
import { Effect, Layer } from "effect"
import * as PgliteDatabase from "../../packages/adapters/dist/sql/PgliteDatabase.js"
import * as Migrations from "../../packages/adapters/dist/sql/migrations.js"

const rssMiB = () => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"))[1]) / 1024
const started = performance.now()
const template = process.env.TEMPLATE === "none" ? false : undefined
const figures = await Effect.runPromise(
  Effect.scoped(
    Effect.gen(function* () {
      const context = yield* Layer.build(PgliteDatabase.layerWith({ dataDir: process.env.DATA_DIR, template }))
      const openMs = performance.now() - started
      yield* Effect.provide(Migrations.run, context)
      const migratedMs = performance.now() - started
      const readyMiB = rssMiB()
      yield* Effect.sleep(Number(process.env.SETTLE_MS ?? 3000))
      return { openMs, migratedMs, readyMiB, settledMiB: rssMiB() }
    })
  )
)
console.log(JSON.stringify(figures))

// The SQL ledger store on embedded PGlite from the installed @frank/adapters: migrations, a
// credit, a reservation and its confirmation in a real database. Node runs it in the pack-install
// test; npm run test:runtimes tries it on Bun and Deno and reports what works.
import { Ids, Ledger } from "@frank/core"
import { OutboxOnMemory } from "@frank/core/testing"
import { TestDatabase } from "@frank/adapters"
import { Effect, Layer } from "effect"

const program = Effect.gen(function* () {
  const ledger = yield* Ledger.Ledger
  yield* ledger.credit("acme", { kind: "bonus", amountMinor: 10_000 })
  yield* ledger.reserve("acme", { taskId: "t1", amountMinor: 4_000 })
  yield* ledger.confirm("acme", { taskId: "t1", amountMinor: 2_500 })
  return yield* ledger.balance("acme")
})

const balance = await Effect.runPromise(
  program.pipe(
    Effect.provide(
      Ledger.Ledger.layer.pipe(
        Layer.provideMerge(TestDatabase.layerPgliteWithLedger()),
        Layer.provide(OutboxOnMemory),
        Layer.provide(Ids.Ids.layer)
      )
    )
  )
).catch((e) => {
  console.error("FAIL the SQL ledger store on PGlite:", e)
  process.exit(1)
})
if (balance.used !== 25 || balance.available !== 75) {
  console.error("FAIL the SQL ledger store on PGlite:", JSON.stringify(balance))
  process.exit(1)
}
console.log("ok   the SQL ledger store on PGlite: 100 credited, 25 charged, 75 available")

// A plain-JavaScript embedder of @frank/core, run with no TypeScript loader on Node, Bun and Deno
// (npm run test:runtimes) and by the pack-install test. Memory stores and the simulation kit
// only: core is the part every runtime must run. Prints one "ok" line per check and exits 1 on
// the first failed one.
import { Ids, Ledger, Pricing, Webhooks } from "@frank/core"
import { MemoryLedgerStore, OutboxOnMemory, ScriptedReceiver, Simulation, SimulationEngine } from "@frank/core/testing"
import { Effect, Either, Layer, TestClock, TestContext } from "effect"

const check = (ok, what, detail) => {
  if (!ok) throw new Error(`FAIL ${what}: ${JSON.stringify(detail)}`)
  console.log(`ok   ${what}`)
}

const ledgerAndPricing = Effect.gen(function* () {
  const ledger = yield* Ledger.Ledger
  const pricing = yield* Pricing.Pricing
  yield* ledger.credit("acme", { kind: "topup", amountMinor: 50_000, attribution: "personal", reference: "pay-1" })
  const quote = Either.getOrThrow(pricing.estimate({ modelId: "veo-3", prompt: "A cat on a boat", voiceCount: 0 }, 0))
  check(
    Number.isInteger(Math.round(quote.totalFranks * 100)) && quote.totalFranks > 0,
    "an estimate prices veo-3",
    quote
  )
  yield* ledger.reserve("acme", { taskId: "task-1", amountMinor: 20_000 })
  const held = yield* ledger.balance("acme")
  check(held.reserved === 200 && held.available === 300, "a reservation holds 200 of 500", held)
  yield* ledger.confirm("acme", { taskId: "task-1", amountMinor: 15_000 })
  const after = yield* ledger.balance("acme")
  check(
    after.used === 150 && after.reserved === 0 && after.available === 350,
    "confirming 150 releases the rest",
    after
  )
}).pipe(
  Effect.provide(
    Layer.mergeAll(Ledger.Ledger.layer, Pricing.Pricing.layerFromCatalog(Pricing.sampleCatalog)).pipe(
      Layer.provide(MemoryLedgerStore),
      Layer.provide(OutboxOnMemory),
      Layer.provide(Ids.Ids.layer)
    )
  )
)

const T0 = Date.UTC(2026, 0, 1)

const retrySimulation = Effect.gen(function* () {
  yield* TestClock.setTime(T0)
  const webhooks = yield* Webhooks.Webhooks
  const ledger = yield* Ledger.Ledger
  const receiver = yield* ScriptedReceiver
  const url = "https://receiver.example/hook"
  yield* receiver.script(url, [503, 500, 200])
  yield* webhooks.createEndpoint("p1", { url, eventTypes: ["billing.settled"] })
  yield* ledger.credit("p1", { kind: "topup", amountMinor: 500_000 })
  yield* ledger.reserve("p1", { taskId: "t1", amountMinor: 20_000 })
  yield* ledger.confirm("p1", { taskId: "t1", amountMinor: 15_000 })
  yield* (yield* Simulation).advance("1 hour")
  const minutes = (yield* receiver.received).map((a) => (a.at - T0) / 60_000)
  // First attempt at once, retries at +1 min and +5 min after it (ARCHITECTURE §5).
  check(JSON.stringify(minutes) === "[0,1,6]", "webhook retries at 0, 1 and 6 minutes under TestClock", minutes)
}).pipe(Effect.provide(SimulationEngine()), Effect.provide(TestContext.TestContext))

await Effect.runPromise(Effect.zipRight(ledgerAndPricing, retrySimulation)).catch((e) => {
  console.error(e instanceof Error ? e.message : e)
  process.exit(1)
})

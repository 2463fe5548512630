/**
 * Embedding the engine in a plain Effect program: a prepaid account, a task reservation sized by
 * the price catalog, the charge confirmed below the hold (the rest released), and the ledger rows.
 * Memory stores here; swap in `SqlLedgerStore.layer` + `PgliteDatabase.layer` / `PostgresDatabase.layer(url)` for real
 * storage — the program does not change.
 *
 *   node --conditions=@frank/source --import tsx examples/embedded-ledger.ts
 */
import { OutboxOnMemory } from "@frank/core/testing"
import { MemoryLedgerStore } from "@frank/adapters"
import { Ids, Ledger, Pricing } from "@frank/core"
import { Effect, Either, Layer, Schema } from "effect"

export const program = Effect.gen(function* () {
  const ledger = yield* Ledger.Ledger
  const pricing = yield* Pricing.Pricing
  // Ports take a branded PartnerId: the host decodes its own account id (a UUID) once, where it enters.
  const partnerId = Schema.decodeSync(Ids.PartnerId)("6f1c1a52-5d1b-4c8e-9a3e-2b7d9f0c1e2a")

  yield* ledger.credit(partnerId, {
    kind: "topup",
    amountMinor: 50_000,
    attribution: "personal",
    reference: "payment-1"
  })

  // Price the task before launching it: 8 s of veo-3 with two voices in the prompt.
  const quote = Either.getOrThrow(
    pricing.estimate({ modelId: "veo-3", prompt: "<<<voice_1>>> Hi! <<<voice_2>>> Hello.", voiceCount: 2 }, 0)
  )
  const holdMinor = Math.round(quote.totalFranks * 100)
  // Holds are keyed by a branded TaskId too (the task service issues them with Ids.nextId).
  const taskId = Schema.decodeSync(Ids.TaskId)("0b9d7c1e-1f5e-4a57-9a5c-5c1d2e3f4a5b")
  yield* ledger.reserve(partnerId, { taskId, amountMinor: holdMinor })

  // The provider reports the actual cost; the unused remainder goes back in the same write.
  const settled = yield* ledger.confirm(partnerId, { taskId, amountMinor: holdMinor - 500 })
  const balance = yield* ledger.balance(partnerId)
  const rows = yield* ledger.listEntries(partnerId, {}, 0, 10)
  return {
    quote: quote.totalFranks,
    settled: settled.hold,
    balance,
    rows: rows.items.map((e) => `${e.type}/${e.kind} ${e.amountMinor / 100} ₣ — ${e.label}`)
  }
})

export const EngineOnMemory = Layer.mergeAll(
  Ledger.Ledger.layer,
  Pricing.Pricing.layerFromCatalog(Pricing.sampleCatalog)
).pipe(
  Layer.provide(MemoryLedgerStore.layer),
  // Webhook events of the movements (billing.settled, …) go to an outbox; here it is in memory too.
  Layer.provide(OutboxOnMemory),
  Layer.provide(Ids.Ids.layer)
)

if (import.meta.url === `file://${process.argv[1]}`) {
  Effect.runPromise(program.pipe(Effect.provide(EngineOnMemory))).then((r) => console.log(JSON.stringify(r, null, 2)))
}

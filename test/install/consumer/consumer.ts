// A strict TypeScript embedder, typechecked against the shipped .d.ts (moduleResolution node16
// and bundler) by the pack-install test. It is compiled, not run: the .mjs programs run.
import { type Errors, type Ids, Ledger, Pricing } from "@frank/core"
import { PartnerApi } from "@frank/core/http"
import { MemoryLedgerStore, OutboxOnMemory, SimulationEngine, testTask } from "@frank/core/testing"
import { PgliteDatabase, SqlLedgerStore, TestDatabase } from "@frank/adapters"
import { Effect, Either, Layer } from "effect"

export const spend = (
  partnerId: Ids.PartnerId,
  amountMinor: number
): Effect.Effect<number, Ledger.LedgerError | Errors.StoreError, Ledger.Ledger> =>
  Effect.gen(function* () {
    const ledger = yield* Ledger.Ledger
    yield* ledger.reserve(partnerId, { taskId: testTask("t1"), amountMinor })
    yield* ledger.confirm(partnerId, { taskId: testTask("t1"), amountMinor })
    const balance = yield* ledger.balance(partnerId)
    return balance.available
  })

export const quoteFranks = Effect.map(Pricing.Pricing, (pricing) =>
  Either.map(pricing.estimate({ modelId: "veo-3", prompt: "hello" }, 0), (q) => q.totalFranks)
)

export const layers = [
  Layer.mergeAll(MemoryLedgerStore, OutboxOnMemory),
  Pricing.Pricing.layerFromCatalog(Pricing.sampleCatalog),
  SimulationEngine(),
  TestDatabase.layerPgliteWithLedger(),
  SqlLedgerStore.layer.pipe(Layer.provide(PgliteDatabase.layerWith({ dataDir: "./data" })))
] as const

export const apiTitle: string = PartnerApi.identifier

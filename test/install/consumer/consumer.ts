// A strict TypeScript embedder, typechecked against the shipped .d.ts (moduleResolution node16
// and bundler) by the pack-install test. It is compiled, not run: the .mjs programs run.
import { Ledger, type LedgerError, Pricing, type StoreError, sampleCatalog, type PartnerId } from "@frank/core"
import { PartnerApi } from "@frank/core/http"
import { MemoryLedgerStore, OutboxOnMemory, SimulationEngine } from "@frank/core/testing"
import { makePgliteTestLayer, pgliteLayer, SqlLedgerStore } from "@frank/adapters"
import { Effect, Either, Layer } from "effect"

export const spend = (
  partnerId: PartnerId,
  amountMinor: number
): Effect.Effect<number, LedgerError | StoreError, Ledger> =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    yield* ledger.reserve(partnerId, { taskId: "t1", amountMinor })
    yield* ledger.confirm(partnerId, { taskId: "t1", amountMinor })
    const balance = yield* ledger.balance(partnerId)
    return balance.available
  })

export const quoteFranks = Effect.map(Pricing, (pricing) =>
  Either.map(pricing.estimate({ modelId: "veo-3", prompt: "hello" }, 0), (q) => q.totalFranks)
)

export const layers = [
  Layer.mergeAll(MemoryLedgerStore, OutboxOnMemory),
  Pricing.layerFromCatalog(sampleCatalog),
  SimulationEngine(),
  makePgliteTestLayer(),
  SqlLedgerStore.pipe(Layer.provide(pgliteLayer({ dataDir: "./data" })))
] as const

export const apiTitle: string = PartnerApi.identifier

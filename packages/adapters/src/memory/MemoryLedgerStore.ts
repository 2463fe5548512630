/**
 * The memory ledger store lives in core's testing entry (the simulation kit builds engines on
 * it without adapters); re-exported here beside the other memory stores.
 */
import type { Ledger, Tariffs } from "@frank/core"
import { MemoryLedgerStore } from "@frank/core/testing"
import type { Layer } from "effect"

/** `LedgerStore` and `TariffStore` in memory. */
export const layer: Layer.Layer<Ledger.LedgerStore | Tariffs.TariffStore> = MemoryLedgerStore

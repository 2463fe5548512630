import { MemoryLedgerStore } from "@frank/core/testing"
import type { Layer } from "effect"
import type { LedgerStore, TariffStore } from "@frank/core/stores"

/** `LedgerStore` and `TariffStore` in memory. */
export const layer: Layer.Layer<LedgerStore | TariffStore> = MemoryLedgerStore

/** An outbox on the memory webhook store, for engines (and tests) that keep events in memory. Needs Ids. */
import { Layer } from "effect"
import { Outbox } from "../../events/Outbox.js"
import * as MemoryWebhookStore from "./MemoryWebhookStore.js"

/** The outbox over the memory webhook store, with the worker's wake-up: what a simulation emits through. */
export const OutboxOnMemory = Outbox.layerWithWakeup.pipe(Layer.provideMerge(MemoryWebhookStore.layer))

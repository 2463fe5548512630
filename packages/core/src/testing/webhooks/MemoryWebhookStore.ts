/**
 * The webhook store on plain memory, for simulations and fast tests: the four webhook store ports
 * and the outbox's `EventStore` over one shared state (memoryWebhookState.ts), provided by one
 * layer. The storage contract suite holds it to the SQL store's behaviour.
 *
 * Used as a namespace: `MemoryWebhookStore.layer`, `MemoryWebhookStore.make`.
 */
import { Effect, Layer } from "effect"
import type { EventStore } from "../../events/EventStore.js"
import {
  type WebhookStores,
  type WebhookStoresShape,
  webhookStoresContext
} from "../../webhooks/store/WebhookStores.js"
import { memoryDeliveryLog } from "./internal/memoryDeliveryLog.js"
import { memoryDeliveryQueue } from "./internal/memoryDeliveryQueue.js"
import { memoryEndpointStore } from "./internal/memoryEndpointStore.js"
import { memoryEventStore } from "./internal/memoryEventStore.js"
import { memoryRetentionStore } from "./internal/memoryRetentionStore.js"
import { makeMemoryWebhookState } from "./internal/memoryWebhookState.js"

/** A fresh, empty store: every port over the same state. */
export const make: Effect.Effect<WebhookStoresShape> = Effect.map(makeMemoryWebhookState, (state) => ({
  endpoints: memoryEndpointStore(state),
  queue: memoryDeliveryQueue(state),
  log: memoryDeliveryLog(state),
  retention: memoryRetentionStore(state),
  events: memoryEventStore(state)
}))

/** Provides the four webhook store ports and the outbox's event store, over one fresh memory store. */
export const layer: Layer.Layer<WebhookStores | EventStore> = Layer.effectContext(
  Effect.map(make, webhookStoresContext)
)

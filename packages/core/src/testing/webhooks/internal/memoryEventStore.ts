/** The memory webhook store's `EventStore`: an event and its fan-out into deliveries, in one step. */
import { Effect } from "effect"
import type { EventStoreShape } from "../../../events/EventStore.js"
import { subscribes } from "../../../webhooks/Endpoint.js"
import { key, live, liveOf, type MemoryWebhookState, type StoredEndpoint } from "./memoryWebhookState.js"

export const memoryEventStore = (state: MemoryWebhookState): EventStoreShape => ({
  // Its writes are visible at once: there is no transaction to wait for.
  insideOpenTransaction: Effect.succeed(false),

  appendEvent: (event, target, now) =>
    state.locked(() => {
      const k = key(event.partnerId, event.id)
      if (state.events.has(k)) return 0
      state.events.set(k, event)
      const targets =
        target._tag === "Endpoint"
          ? [live(state, event.partnerId, target.endpointId)].filter((e): e is StoredEndpoint => e !== undefined)
          : liveOf(state, event.partnerId).filter((e) => e.active && subscribes(e, event.type))
      for (const e of targets) {
        const id = state.nextDeliveryId()
        state.deliveries.set(key(event.partnerId, id), {
          partnerId: event.partnerId,
          id,
          endpointId: e.id,
          eventId: event.id,
          eventType: event.type,
          status: "pending",
          attempts: 0,
          nextAttemptAt: now,
          leaseUntil: null,
          createdAt: now,
          updatedAt: now,
          claimToken: null,
          sentAt: null,
          attemptLog: []
        })
      }
      return targets.length
    })
})

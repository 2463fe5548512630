/** The memory webhook store's `WebhookRetentionStore`: finished deliveries and unreferenced events past their time. */
import type { DeliveryStatus } from "../../../webhooks/DeliveryState.js"
import type { WebhookRetentionStoreShape } from "../../../webhooks/store/WebhookRetentionStore.js"
import { key, type MemoryWebhookState, oldestFirst } from "./memoryWebhookState.js"

const isFinished = (status: DeliveryStatus) => status !== "pending" && status !== "delivering"

export const memoryRetentionStore = ({
  deliveries,
  events,
  locked
}: MemoryWebhookState): WebhookRetentionStoreShape => ({
  deleteExpiredDeliveries: (before, limit) =>
    locked(() => {
      const expired = [...deliveries.values()]
        .filter((d) => d.createdAt < before && isFinished(d.status))
        .sort(oldestFirst)
        .slice(0, limit)
      for (const d of expired) deliveries.delete(key(d.partnerId, d.id))
      return expired.length
    }),

  deleteExpiredEvents: (before, limit) =>
    locked(() => {
      const referenced = new Set([...deliveries.values()].map((d) => key(d.partnerId, d.eventId)))
      const expired = [...events.entries()]
        .filter(([k, e]) => e.occurredAt < before && !referenced.has(k))
        .sort(([, a], [, b]) => a.occurredAt - b.occurredAt)
        .slice(0, limit)
      for (const [k] of expired) events.delete(k)
      return expired.length
    }),

  oldestEventAt: () =>
    locked(() => {
      let oldest: number | undefined
      for (const e of events.values()) if (oldest === undefined || e.occurredAt < oldest) oldest = e.occurredAt
      return oldest
    }),

  // Nothing to ready: memory has no partitions.
  prepare: () => locked(() => undefined)
})

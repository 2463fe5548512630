/** The memory webhook store's `DeliveryLog`: listing, reading, replaying and recovering deliveries. */
import { Either } from "effect"
import { isBefore } from "../../../webhooks/Delivery.js"
import type { DeliveryStatus } from "../../../webhooks/DeliveryState.js"
import type { DeliveryLogShape } from "../../../webhooks/store/DeliveryLog.js"
import {
  byId,
  conditionOf,
  key,
  type MemoryWebhookState,
  oldestFirst,
  type StoredDelivery,
  toRecord
} from "./memoryWebhookState.js"

const isFailed = (status: DeliveryStatus) => status === "dead_lettered" || status === "uncertain"

export const memoryDeliveryLog = ({ endpoints, events, deliveries, locked }: MemoryWebhookState): DeliveryLogShape => ({
  listDeliveries: (partnerId, filter, limit, after) =>
    locked(() => {
      const rows = [...deliveries.values()]
        .filter(
          (d) =>
            d.partnerId === partnerId &&
            (filter.endpointId === undefined || d.endpointId === filter.endpointId) &&
            (filter.status === undefined || d.status === filter.status) &&
            (filter.eventType === undefined || d.eventType === filter.eventType) &&
            (filter.createdFrom === undefined || d.createdAt >= filter.createdFrom) &&
            (filter.createdBefore === undefined || d.createdAt < filter.createdBefore) &&
            (after === undefined || isBefore(d, after))
        )
        .sort((a, b) => b.createdAt - a.createdAt || byId(b, a))
      const page = rows.slice(0, limit).map(toRecord)
      const last = page[page.length - 1]
      return {
        deliveries: page,
        next: rows.length > limit && last !== undefined ? { createdAt: last.createdAt, id: last.id } : null
      }
    }),

  getDelivery: (partnerId, id) =>
    locked(() => {
      const d = deliveries.get(key(partnerId, id))
      const event = d === undefined ? undefined : events.get(key(partnerId, d.eventId))
      return d === undefined ? undefined : { ...toRecord(d), payload: event?.payload ?? "", attemptLog: d.attemptLog }
    }),

  attemptStats: (partnerId, endpointId, since, width, buckets) =>
    locked(() => {
      const out = Array.from({ length: buckets }, (_, i) => ({
        start: since + i * width,
        attempts: 0,
        succeeded: 0,
        totalDurationMs: 0
      }))
      for (const d of deliveries.values()) {
        if (d.partnerId !== partnerId || d.endpointId !== endpointId) continue
        for (const a of d.attemptLog) {
          const bucket = out[Math.floor((a.startedAt - since) / width)]
          if (a.startedAt < since || bucket === undefined) continue
          bucket.attempts++
          if (a.responseStatus !== null && a.responseStatus >= 200 && a.responseStatus < 300) bucket.succeeded++
          bucket.totalDurationMs += a.durationMs
        }
      }
      return out
    }),

  updateDelivery: (partnerId, id, rule, now) =>
    locked(() => {
      const k = key(partnerId, id)
      const d = deliveries.get(k)
      if (d === undefined) return undefined
      const e = endpoints.get(key(partnerId, d.endpointId))
      const endpoint = e === undefined ? "deleted" : conditionOf(e)
      return Either.map(rule({ delivery: toRecord(d), endpoint }), (state) => {
        const next: StoredDelivery = { ...d, ...state, claimToken: null, updatedAt: now }
        deliveries.set(k, next)
        return toRecord(next)
      })
    }),

  recoverDeliveries: (partnerId, endpointId, window, limit, rules, now) =>
    locked(() => {
      const e = endpoints.get(key(partnerId, endpointId))
      if (e === undefined) return undefined
      const endpoint = conditionOf(e)
      const open = rules.endpoint(endpoint)
      if (Either.isLeft(open)) return Either.left(open.left)
      const inWindow = (d: StoredDelivery) =>
        d.partnerId === partnerId &&
        d.endpointId === endpointId &&
        isFailed(d.status) &&
        d.createdAt >= window.since &&
        d.createdAt < window.until
      let requeued = 0
      for (const d of [...deliveries.values()].filter(inWindow).sort(oldestFirst).slice(0, limit)) {
        const decided = rules.delivery({ delivery: toRecord(d), endpoint })
        if (Either.isLeft(decided)) continue
        deliveries.set(key(partnerId, d.id), { ...d, ...decided.right, claimToken: null, updatedAt: now })
        requeued++
      }
      return Either.right({ requeued, remaining: [...deliveries.values()].filter(inWindow).length })
    })
})

/**
 * The memory webhook store's `DeliveryQueue`: what the worker asks of storage. The claim and the
 * lease are memoryClaim.ts's, the health rule's reads and pause memoryEndpointHealth.ts's; like
 * them it applies the pure state machine and claim condition the SQL store encodes in SQL.
 */
import { Effect } from "effect"
import { claimableAt, isClaimable } from "../../../webhooks/internal/claimable.js"
import { afterOutcomes, type HealthOutcome } from "../../../webhooks/EndpointHealth.js"
import type { DeliveryQueueShape } from "../../../webhooks/store/DeliveryQueue.js"
import { endpointOf, key, live, type MemoryWebhookState } from "./memoryWebhookState.js"
import { memoryClaim } from "./memoryClaim.js"
import { memoryEndpointHealth } from "./memoryEndpointHealth.js"

export const memoryDeliveryQueue = (state: MemoryWebhookState): DeliveryQueueShape => {
  const { endpoints, deliveries, locked } = state
  return {
    ...memoryClaim(state),
    ...memoryEndpointHealth(state),

    finishAttempts: (finished, now) =>
      locked(() => {
        const recorded: Array<string> = []
        const health = new Map<string, Array<HealthOutcome>>()
        for (const { claim, next, attempt } of finished) {
          const k = key(claim.partnerId, claim.id)
          const d = deliveries.get(k)
          if (d === undefined || d.status !== "delivering" || d.claimToken !== claim.claimToken) continue
          recorded.push(claim.id)
          if (next.status === "delivered" || next.status === "dead_lettered") {
            const ek = key(claim.partnerId, claim.endpointId)
            const outcome = { at: attempt.startedAt + attempt.durationMs, delivered: next.status === "delivered" }
            health.set(ek, [...(health.get(ek) ?? []), outcome])
          }
          // A retry of an endpoint deleted meanwhile goes with the endpoint's other pending deliveries.
          if (next.status === "pending" && live(state, d.partnerId, d.endpointId) === undefined) deliveries.delete(k)
          else
            deliveries.set(k, {
              ...d,
              ...next,
              claimToken: null,
              updatedAt: now,
              attemptLog: [...d.attemptLog, attempt]
            })
        }
        for (const [ek, outcomes] of health) {
          const e = endpoints.get(ek)
          const after = e === undefined || e.deletedAt !== null ? undefined : afterOutcomes(e.health, outcomes)
          if (e !== undefined && after !== undefined) endpoints.set(ek, { ...e, health: after })
        }
        return recorded
      }),

    nextWakeAt: () =>
      locked(() => {
        let next: number | undefined
        for (const d of deliveries.values()) {
          const at = d.status === "delivering" ? d.leaseUntil : claimableAt(d, endpointOf(state, d))
          if (at !== null && (next === undefined || at < next)) next = at
        }
        for (const e of endpoints.values()) {
          const at = e.previousSecret === null ? null : e.previousSecretValidUntil
          if (at !== null && (next === undefined || at < next)) next = at
        }
        return next
      }),

    dueBacklog: (now) =>
      locked(() => {
        let count = 0
        let oldestDueAt: number | undefined
        for (const d of deliveries.values()) {
          const at = d.nextAttemptAt
          if (at === null || !isClaimable(d, endpointOf(state, d), now)) continue
          count++
          if (oldestDueAt === undefined || at < oldestDueAt) oldestDueAt = at
        }
        return { count, oldestDueAt }
      }),

    dropExpiredSecrets: (now) =>
      locked(() => {
        let n = 0
        for (const [k, e] of endpoints) {
          if (e.previousSecret === null || e.previousSecretValidUntil === null || e.previousSecretValidUntil > now)
            continue
          endpoints.set(k, { ...e, previousSecret: null, previousSecretValidUntil: null })
          n++
        }
        return n
      }),

    // A deletion here is one step under the store's lock: nothing is ever left half done.
    purgeDeletedEndpoints: () => Effect.succeed(0)
  }
}

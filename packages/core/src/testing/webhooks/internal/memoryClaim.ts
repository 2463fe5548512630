/**
 * The claim and the lease on memory, the queue's operations about who holds a delivery: claiming
 * due deliveries (`isClaimable`, core's one definition of "claimable") under a lease and a claim
 * token, marking claims sent, and what becomes of a lease that ran out (the state machine's
 * `Claim` and `LeaseExpired`: `uncertain` if marked sent, else pending again, or gone with a
 * deleted endpoint). The memory twin of the SQL store's claimSql.ts.
 */
import type { WebhookEvent } from "../../../events/Event.js"
import type { AttemptRecord, ClaimedDelivery } from "../../../webhooks/Delivery.js"
import { isClaimable } from "../../../webhooks/internal/claimable.js"
import { transition } from "../../../webhooks/DeliveryState.js"
import { deferredUntil, emptyRateState, takeRate } from "../../../webhooks/deliveryRate.js"
import type { DeliveryQueueShape } from "../../../webhooks/store/DeliveryQueue.js"
import {
  endpointOf,
  key,
  live,
  type MemoryWebhookState,
  type StoredDelivery,
  type StoredEndpoint
} from "./memoryWebhookState.js"

/**
 * The endpoint's rate at `now`, one delivery at a time in due order: true when the claim may take
 * it (unlimited, or room in its window); otherwise the delivery is deferred to when room frees,
 * its attempts unchanged, the k-th deferred of an endpoint a second further per `perSecond`.
 */
const rateAdmission = (state: MemoryWebhookState, now: number) => {
  const deferred = new Map<string, number>()
  return (d: StoredDelivery): boolean => {
    const perSecond = endpointOf(state, d)?.rateLimitPerSecond ?? null
    if (perSecond === null) return true
    const k = key(d.partnerId, d.endpointId)
    const take = takeRate(state.rateWindows.get(k) ?? emptyRateState, perSecond, 1, now)
    state.rateWindows.set(k, take.state)
    if (take.granted === 1) return true
    const n = deferred.get(k) ?? 0
    deferred.set(k, n + 1)
    state.deliveries.set(key(d.partnerId, d.id), { ...d, nextAttemptAt: deferredUntil(take.retryAt, n, perSecond) })
    return false
  }
}

export const memoryClaim = (
  state: MemoryWebhookState
): Pick<DeliveryQueueShape, "claimDue" | "markSent" | "expireLeases"> => {
  const { events, deliveries, locked } = state
  return {
    claimDue: (now, leaseMs, limit, claimToken) =>
      locked(() => {
        const due = [...deliveries.values()]
          .filter((d) => isClaimable(d, endpointOf(state, d), now))
          .sort((a, b) => (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0))
        const admit = rateAdmission(state, now)
        const claimed: Array<ClaimedDelivery> = []
        for (const d of due) {
          if (claimed.length >= limit) break
          if (!admit(d)) continue
          const t = transition(d, { _tag: "Claim", leaseMs }, now)
          if (t._tag === "Rejected") continue
          const next: StoredDelivery = { ...d, ...t.state, claimToken, sentAt: null, updatedAt: now }
          deliveries.set(key(d.partnerId, d.id), next)
          const e = live(state, d.partnerId, d.endpointId) as StoredEndpoint
          const event = events.get(key(d.partnerId, d.eventId)) as WebhookEvent
          claimed.push({
            partnerId: d.partnerId,
            id: d.id,
            endpointId: d.endpointId,
            eventId: d.eventId,
            eventType: d.eventType,
            payload: event.payload,
            url: e.url,
            secret: e.secret,
            previousSecret: e.previousSecret,
            previousSecretValidUntil: e.previousSecretValidUntil,
            signatureScheme: e.signatureScheme,
            traceParent: event.traceParent ?? null,
            state: t.state,
            claimToken,
            createdAt: d.createdAt
          })
        }
        return claimed
      }),

    // A whole claim's batch at once, as the SQL store's row per claim token.
    markSent: (claims, now) =>
      locked(() => {
        const tokens = new Set(claims.map((c) => c.claimToken))
        for (const [k, d] of deliveries)
          if (d.status === "delivering" && d.claimToken !== null && tokens.has(d.claimToken) && d.sentAt === null)
            deliveries.set(k, { ...d, sentAt: now })
      }),

    expireLeases: (now) =>
      locked(() => {
        let n = 0
        for (const [k, d] of deliveries) {
          const t = transition(d, { _tag: "LeaseExpired", sent: d.sentAt !== null }, now)
          if (t._tag === "Rejected") continue
          if (t.state.status === "pending") {
            // Never sent: back in the queue, or gone with its endpoint's other pending deliveries.
            if (live(state, d.partnerId, d.endpointId) === undefined) deliveries.delete(k)
            else deliveries.set(k, { ...d, ...t.state, claimToken: null, sentAt: null, updatedAt: now })
            continue
          }
          const unknown: AttemptRecord = {
            attempt: d.attempts,
            startedAt: now,
            durationMs: 0,
            responseStatus: null,
            error: "outcome unknown: the worker stopped mid-request"
          }
          deliveries.set(k, {
            ...d,
            ...t.state,
            claimToken: null,
            updatedAt: now,
            attemptLog: [...d.attemptLog, unknown]
          })
          n++
        }
        return n
      })
  }
}

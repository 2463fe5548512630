/**
 * The webhook store on plain memory, for simulations and fast tests. One semaphore serializes
 * every operation, the memory counterpart of the SQL store's row locks and SKIP LOCKED claims.
 * It applies the same pure state machine the SQL store encodes in its statements; the storage
 * contract suite holds both to the same behaviour.
 */
import { Context, Effect, Either, Layer } from "effect"
import type { DeliveryId, PartnerId } from "../EntityIds.js"
import type { AttemptRecord, ClaimedDelivery, DeliveryRecord } from "../webhooks/Delivery.js"
import { isBefore } from "../webhooks/Delivery.js"
import { claimableAt, isClaimable } from "../webhooks/claimable.js"
import { transition } from "../webhooks/DeliveryState.js"
import { subscribes, type WebhookEndpoint } from "../webhooks/Endpoint.js"
import { afterOutcomes, type HealthOutcome } from "../webhooks/EndpointHealth.js"
import type { WebhookEvent } from "../events/Event.js"
import { EventStore, type EventStoreShape } from "../events/EventStore.js"
import { Outbox } from "../events/Outbox.js"
import type { DeliveryStatus } from "../webhooks/DeliveryState.js"
import { type EndpointCondition, WebhookStore, type WebhookStoreShape } from "../webhooks/WebhookStore.js"

interface StoredEndpoint extends WebhookEndpoint {
  readonly deletedAt: number | null
}

interface StoredDelivery extends Omit<DeliveryRecord, "responseCodes" | "lastError"> {
  readonly claimToken: string | null
  readonly attemptLog: ReadonlyArray<AttemptRecord>
}

const key = (partnerId: PartnerId, id: string) => `${partnerId}\u0000${id}`

/** Ids in code-point order, as SQL's `ORDER BY id` (uuid) puts lowercase UUIDs: the tie-break after a timestamp. */
const byId = (a: { readonly id: string }, b: { readonly id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

const toRecord = (d: StoredDelivery): DeliveryRecord => {
  const { claimToken: _c, attemptLog, ...rest } = d
  const last = attemptLog[attemptLog.length - 1]
  return { ...rest, responseCodes: attemptLog.map((a) => a.responseStatus), lastError: last?.error ?? null }
}

/** Oldest first: by createdAt, then id. */
const oldestFirst = (a: StoredDelivery, b: StoredDelivery) => a.createdAt - b.createdAt || byId(a, b)

const isFinished = (status: DeliveryStatus) => status !== "pending" && status !== "delivering"
const isFailed = (status: DeliveryStatus) => status === "dead_lettered" || status === "uncertain"

const conditionOf = (e: StoredEndpoint): EndpointCondition =>
  e.deletedAt !== null ? "deleted" : e.active ? "active" : "inactive"

const publicEndpoint = ({ deletedAt: _d, ...e }: StoredEndpoint): WebhookEndpoint => e

export const makeMemoryWebhookStore = Effect.gen(function* () {
  const lock = yield* Effect.makeSemaphore(1)
  const endpoints = new Map<string, StoredEndpoint>()
  const events = new Map<string, WebhookEvent>()
  const deliveries = new Map<string, StoredDelivery>()
  let deliverySeq = 0

  const locked = <A>(f: () => A) => lock.withPermits(1)(Effect.sync(f))
  const live = (partnerId: PartnerId, id: string) => {
    const e = endpoints.get(key(partnerId, id))
    return e !== undefined && e.deletedAt === null ? e : undefined
  }
  const endpointOf = (d: StoredDelivery) => endpoints.get(key(d.partnerId, d.endpointId))
  const liveOf = (partnerId: PartnerId) =>
    [...endpoints.values()].filter((e) => e.partnerId === partnerId && e.deletedAt === null)

  const store: WebhookStoreShape & EventStoreShape = {
    // Its writes are visible at once: there is no transaction to wait for.
    insideOpenTransaction: Effect.succeed(false),
    insertEndpoint: (endpoint, maxPerPartner) =>
      locked(() => {
        if (liveOf(endpoint.partnerId).length >= maxPerPartner) return false
        endpoints.set(key(endpoint.partnerId, endpoint.id), { ...endpoint, deletedAt: null })
        return true
      }),

    listEndpoints: (partnerId) =>
      locked(() =>
        liveOf(partnerId)
          .sort((a, b) => a.createdAt - b.createdAt || byId(a, b))
          .map(publicEndpoint)
      ),

    getEndpoint: (partnerId, id) =>
      locked(() => {
        const e = live(partnerId, id)
        return e === undefined ? undefined : publicEndpoint(e)
      }),

    modifyEndpoint: (partnerId, id, change) =>
      locked(() => {
        const e = live(partnerId, id)
        if (e === undefined) return undefined
        const next = change(publicEndpoint(e))
        endpoints.set(key(partnerId, id), { ...next, deletedAt: null })
        return next
      }),

    // The change is made under the lock, `alongside` after it (it appends an event, which takes the
    // lock too); if `alongside` fails, the endpoint goes back as it was, as a rollback would leave it.
    disableEndpoint: (partnerId, id, disable, alongside) =>
      Effect.gen(function* () {
        const change = yield* locked(() => {
          const e = live(partnerId, id)
          const next = e === undefined ? undefined : disable(publicEndpoint(e))
          if (e === undefined || next === undefined) return undefined
          endpoints.set(key(partnerId, id), { ...next, deletedAt: null })
          return { before: e, next }
        })
        if (change === undefined) return undefined
        yield* Effect.tapError(alongside(change.next), () =>
          locked(() => endpoints.set(key(partnerId, id), change.before))
        )
        return change.next
      }),

    failingEndpoints: (strikesSinceBy, minFailures, limit) =>
      locked(() =>
        [...endpoints.values()]
          .filter(
            (e) =>
              e.deletedAt === null &&
              e.active &&
              e.health.strikes >= minFailures &&
              e.health.strikesSince !== null &&
              e.health.strikesSince <= strikesSinceBy
          )
          .sort((a, b) => (a.health.strikesSince ?? 0) - (b.health.strikesSince ?? 0))
          .slice(0, limit)
          .map((e) => ({ partnerId: e.partnerId, id: e.id }))
      ),

    earliestStrikes: (minFailures) =>
      locked(() => {
        let earliest: number | undefined
        for (const e of endpoints.values()) {
          const at = e.health.strikesSince
          if (e.deletedAt !== null || !e.active || e.health.strikes < minFailures || at === null) continue
          if (earliest === undefined || at < earliest) earliest = at
        }
        return earliest
      }),

    deleteEndpoint: (partnerId, id, now) =>
      locked(() => {
        const e = live(partnerId, id)
        if (e === undefined) return false
        endpoints.set(key(partnerId, id), {
          ...e,
          active: false,
          secret: "",
          previousSecret: null,
          previousSecretValidUntil: null,
          updatedAt: now,
          deletedAt: now
        })
        for (const [k, d] of deliveries)
          if (d.partnerId === partnerId && d.endpointId === id && d.status === "pending") deliveries.delete(k)
        return true
      }),

    appendEvent: (event, target, now) =>
      locked(() => {
        const k = key(event.partnerId, event.id)
        if (events.has(k)) return 0
        events.set(k, event)
        const targets =
          target._tag === "Endpoint"
            ? [live(event.partnerId, target.endpointId)].filter((e): e is StoredEndpoint => e !== undefined)
            : liveOf(event.partnerId).filter((e) => e.active && subscribes(e, event.type))
        for (const e of targets) {
          // Ids are v4-shaped but ordered, so the newest-first listing breaks ties like the SQL store.
          const id = `00000000-0000-4000-8000-${String(++deliverySeq).padStart(12, "0")}` as DeliveryId
          deliveries.set(key(event.partnerId, id), {
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
            attemptLog: []
          })
        }
        return targets.length
      }),

    claimDue: (now, leaseMs, limit, claimToken) =>
      locked(() => {
        const due = [...deliveries.values()]
          .filter((d) => isClaimable(d, endpointOf(d), now))
          .sort((a, b) => (a.nextAttemptAt ?? 0) - (b.nextAttemptAt ?? 0))
          .slice(0, limit)
        const claimed: Array<ClaimedDelivery> = []
        for (const d of due) {
          const t = transition(d, { _tag: "Claim", leaseMs }, now)
          if (t._tag === "Rejected") continue
          const next: StoredDelivery = { ...d, ...t.state, claimToken, updatedAt: now }
          deliveries.set(key(d.partnerId, d.id), next)
          const e = live(d.partnerId, d.endpointId) as StoredEndpoint
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
            state: t.state,
            claimToken
          })
        }
        return claimed
      }),

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
          if (next.status === "pending" && live(d.partnerId, d.endpointId) === undefined) deliveries.delete(k)
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

    // A deletion here is one step under the store's lock: nothing is ever left half done.
    purgeDeletedEndpoints: () => Effect.succeed(0),

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

    expireLeases: (now) =>
      locked(() => {
        let n = 0
        for (const [k, d] of deliveries) {
          const t = transition(d, { _tag: "LeaseExpired" }, now)
          if (t._tag === "Rejected") continue
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
      }),

    nextWakeAt: () =>
      locked(() => {
        let next: number | undefined
        for (const d of deliveries.values()) {
          const at = d.status === "delivering" ? d.leaseUntil : claimableAt(d, endpointOf(d))
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
          if (at === null || !isClaimable(d, endpointOf(d), now)) continue
          count++
          if (oldestDueAt === undefined || at < oldestDueAt) oldestDueAt = at
        }
        return { count, oldestDueAt }
      }),

    listDeliveries: (partnerId, filter, limit, after) =>
      locked(() => {
        const rows = [...deliveries.values()]
          .filter(
            (d) =>
              d.partnerId === partnerId &&
              (filter.endpointId === undefined || d.endpointId === filter.endpointId) &&
              (filter.status === undefined || d.status === filter.status) &&
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
        return d === undefined ? undefined : toRecord(d)
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
      }),

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
      })
  }
  return store
})

/** Provides the webhook store and the outbox's event store, which it implements too. */
export const MemoryWebhookStore = Layer.effectContext(
  Effect.map(makeMemoryWebhookStore, (store) => Context.make(WebhookStore, store).pipe(Context.add(EventStore, store)))
)

/** An outbox on the memory webhook store, for engines (and tests) that keep events in memory. Needs Ids. */
export const OutboxOnMemory = Outbox.layerWithWakeup.pipe(Layer.provideMerge(MemoryWebhookStore))

/**
 * What the memory webhook store's ports share: the maps of endpoints, events and deliveries, and
 * the one semaphore that serializes every operation (the memory counterpart of the SQL store's row
 * locks and SKIP LOCKED claims), with the row helpers every port reads through.
 */
import { Effect } from "effect"
import type { DeliveryId, PartnerId } from "../../../EntityIds.js"
import type { WebhookEvent } from "../../../events/Event.js"
import type { AttemptRecord, DeliveryRecord } from "../../../webhooks/Delivery.js"
import type { WebhookEndpoint } from "../../../webhooks/Endpoint.js"
import type { RateState } from "../../../webhooks/deliveryRate.js"
import type { EndpointCondition } from "../../../webhooks/store/storeTypes.js"

export interface StoredEndpoint extends WebhookEndpoint {
  readonly deletedAt: number | null
}

export interface StoredDelivery extends Omit<DeliveryRecord, "responseCodes" | "lastError"> {
  readonly claimToken: string | null
  /** When the current claim's request was marked as handed to the network (`markSent`); null until then. */
  readonly sentAt: number | null
  readonly attemptLog: ReadonlyArray<AttemptRecord>
}

export interface MemoryWebhookState {
  readonly endpoints: Map<string, StoredEndpoint>
  readonly events: Map<string, WebhookEvent>
  readonly deliveries: Map<string, StoredDelivery>
  /** Each rate-limited endpoint's rate state (grants of the last second, next slot), by endpoint key (deliveryRate.ts). */
  readonly rateWindows: Map<string, RateState>
  /** Runs `f` holding the store's one lock. */
  readonly locked: <A>(f: () => A) => Effect.Effect<A>
  /** Ids are v4-shaped but ordered, so the newest-first listing breaks ties like the SQL store. */
  readonly nextDeliveryId: () => DeliveryId
}

export const makeMemoryWebhookState: Effect.Effect<MemoryWebhookState> = Effect.map(Effect.makeSemaphore(1), (lock) => {
  let deliverySeq = 0
  return {
    endpoints: new Map(),
    events: new Map(),
    deliveries: new Map(),
    rateWindows: new Map(),
    locked: (f) => lock.withPermits(1)(Effect.sync(f)),
    nextDeliveryId: () => `00000000-0000-4000-8000-${String(++deliverySeq).padStart(12, "0")}` as DeliveryId
  }
})

export const key = (partnerId: PartnerId, id: string) => `${partnerId}\u0000${id}`

/** Ids in code-point order, as SQL's `ORDER BY id` (uuid) puts lowercase UUIDs: the tie-break after a timestamp. */
export const byId = (a: { readonly id: string }, b: { readonly id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** Oldest first: by createdAt, then id. */
export const oldestFirst = (a: StoredDelivery, b: StoredDelivery) => a.createdAt - b.createdAt || byId(a, b)

export const toRecord = (d: StoredDelivery): DeliveryRecord => {
  const { claimToken: _c, sentAt: _s, attemptLog, ...rest } = d
  const last = attemptLog[attemptLog.length - 1]
  return { ...rest, responseCodes: attemptLog.map((a) => a.responseStatus), lastError: last?.error ?? null }
}

export const conditionOf = (e: StoredEndpoint): EndpointCondition =>
  e.deletedAt !== null ? "deleted" : e.active ? "active" : "inactive"

export const publicEndpoint = ({ deletedAt: _d, ...e }: StoredEndpoint): WebhookEndpoint => e

/** The endpoint unless it is deleted. */
export const live = (state: MemoryWebhookState, partnerId: PartnerId, id: string) => {
  const e = state.endpoints.get(key(partnerId, id))
  return e !== undefined && e.deletedAt === null ? e : undefined
}

/** The partner's endpoints that are not deleted. */
export const liveOf = (state: MemoryWebhookState, partnerId: PartnerId) =>
  [...state.endpoints.values()].filter((e) => e.partnerId === partnerId && e.deletedAt === null)

/** The delivery's endpoint, deleted or not. */
export const endpointOf = (state: MemoryWebhookState, d: StoredDelivery) =>
  state.endpoints.get(key(d.partnerId, d.endpointId))

/**
 * The storage port of webhooks: endpoints, deliveries and their attempts. (Events are written
 * through the outbox's `EventStore`, which the webhook stores implement too: an event fans out
 * into deliveries in the same statement.)
 * Adapters implement it on memory (simulations) and SQL (Postgres and PGlite); one contract suite
 * holds both to the same behaviour.
 *
 * Partner data is always addressed with its partner id. The worker operations (`claimDue`,
 * `finishAttempt`, `expireLeases`, `nextDueAt`) and retention's (`deleteExpiredDeliveries`,
 * `deleteExpiredEvents`, `oldestEventAt`) are the exception by nature: they serve every partner,
 * and a claimed delivery carries its partner id from then on.
 */
import { Context, type Effect, type Either } from "effect"
import type { DeliveryId, EndpointId, PartnerId } from "../EntityIds.js"
import type { StoreError } from "../StoreError.js"
import type {
  ClaimedDelivery,
  DeliveryCursor,
  DeliveryFilter,
  DeliveryPage,
  DeliveryRecord,
  FinishedAttempt
} from "./Delivery.js"
import type { DeliveryState } from "./DeliveryState.js"
import type { WebhookEndpoint } from "./Endpoint.js"
import type { RecoveryResult, RecoveryWindow } from "./recoveryWindow.js"

/** Deliveries due and not yet attempted (`WebhookStore.dueBacklog`). */
export interface DueBacklog {
  readonly count: number
  /** The earliest due time among them; undefined when there are none. */
  readonly oldestDueAt: number | undefined
}

/** What became of an endpoint, as the replay rule reads it. */
export type EndpointCondition = "active" | "inactive" | "deleted"

/** An endpoint by its key. */
export interface EndpointKey {
  readonly partnerId: PartnerId
  readonly id: EndpointId
}

/** What a replay rule sees: the delivery's state and what became of its endpoint. */
export interface ReplaySnapshot {
  readonly delivery: DeliveryState
  readonly endpoint: EndpointCondition
}

/**
 * Bulk recovery's two halves of the replay rule (replayRule.ts): the endpoint's, whose failure is
 * the answer, then each delivery's, whose refusal leaves that delivery as it is.
 */
export interface RecoveryRules<E> {
  readonly endpoint: (endpoint: EndpointCondition) => Either.Either<void, E>
  readonly delivery: (snapshot: ReplaySnapshot) => Either.Either<DeliveryState, unknown>
}

export interface WebhookStoreShape {
  /** Inserts unless the partner already has `maxPerPartner` endpoints; concurrent inserts cannot exceed it. */
  readonly insertEndpoint: (endpoint: WebhookEndpoint, maxPerPartner: number) => Effect.Effect<boolean, StoreError>
  /** Live (not deleted) endpoints, oldest first. */
  readonly listEndpoints: (partnerId: PartnerId) => Effect.Effect<ReadonlyArray<WebhookEndpoint>, StoreError>
  readonly getEndpoint: (partnerId: PartnerId, id: EndpointId) => Effect.Effect<WebhookEndpoint | undefined, StoreError>
  /**
   * Replaces a live endpoint with what `change` (a pure rule: a patch, a rotation) decides from
   * the locked current one; undefined when there is none.
   */
  readonly modifyEndpoint: (
    partnerId: PartnerId,
    id: EndpointId,
    change: (current: WebhookEndpoint) => WebhookEndpoint
  ) => Effect.Effect<WebhookEndpoint | undefined, StoreError>
  /**
   * The health rule's pause (the worker's sweep): locks the live endpoint, and when `disable` (a
   * pure rule) still pauses it, writes that, takes its pending deliveries out of the claim's way
   * (as a PATCH pause does) and runs `alongside` (the outbox's event) in the same transaction;
   * answers the paused endpoint, or undefined when there was nothing to pause.
   */
  readonly disableEndpoint: (
    partnerId: PartnerId,
    id: EndpointId,
    disable: (current: WebhookEndpoint) => WebhookEndpoint | undefined,
    alongside: (disabled: WebhookEndpoint) => Effect.Effect<void, StoreError>
  ) => Effect.Effect<WebhookEndpoint | undefined, StoreError>
  /**
   * Active live endpoints whose health counts at least `minFailures` strikes that began at
   * `strikesSinceBy` or earlier (the disable rule's candidates), oldest span first, up to `limit`.
   */
  readonly failingEndpoints: (
    strikesSinceBy: number,
    minFailures: number,
    limit: number
  ) => Effect.Effect<ReadonlyArray<EndpointKey>, StoreError>
  /**
   * The earliest start of a span counting at least `minFailures` strikes on an active live
   * endpoint (the rule pauses it once that span is old enough); undefined when there is none.
   */
  readonly earliestStrikes: (minFailures: number) => Effect.Effect<number | undefined, StoreError>
  /**
   * Marks the endpoint deleted (its secrets wiped) and removes its pending deliveries; false when
   * there was none. A store may do it in two steps, the deletion committed first; if it stops in
   * between, `purgeDeletedEndpoints` finishes the second.
   */
  readonly deleteEndpoint: (partnerId: PartnerId, id: EndpointId, now: number) => Effect.Effect<boolean, StoreError>

  /**
   * Claims up to `limit` due deliveries of active endpoints, oldest due first, skipping rows other
   * workers hold. `claimToken` must be new for every call: outcomes are fenced by it alone.
   */
  readonly claimDue: (
    now: number,
    leaseMs: number,
    limit: number,
    claimToken: string
  ) => Effect.Effect<ReadonlyArray<ClaimedDelivery>, StoreError>
  /**
   * Records attempts and moves each delivery to its `next` state, only while its claim still
   * holds it (a claim lost to an expired lease records nothing). One write for the whole batch;
   * answers the ids of the deliveries whose attempt was recorded. In the same write each endpoint's
   * health takes the recorded outcomes that delivered or dead-lettered (`afterOutcomes`, an
   * attempt's answer time being its start plus its duration).
   */
  readonly finishAttempts: (
    finished: ReadonlyArray<FinishedAttempt>,
    now: number
  ) => Effect.Effect<ReadonlyArray<string>, StoreError>
  /**
   * Wipes every previous secret whose rotation window ended by `now` (spec "Secret rotation": after
   * the window the old secret is wiped, not merely unused); answers how many.
   */
  readonly dropExpiredSecrets: (now: number) => Effect.Effect<number, StoreError>
  /**
   * Removes the pending deliveries of endpoints whose deletion committed but did not get to
   * remove them (the store stopped between its two steps; see `deleteEndpoint`), skipping any a
   * writer still holds; answers how many endpoints it finished. A store that deletes in one step
   * answers 0.
   */
  readonly purgeDeletedEndpoints: (now: number) => Effect.Effect<number, StoreError>
  /** Every delivery whose lease ran out while delivering becomes `uncertain`; answers how many. */
  readonly expireLeases: (now: number) => Effect.Effect<number, StoreError>
  /**
   * The earliest time a delivery of an active endpoint is due, a lease ends, or a rotation window
   * ends (its previous secret is then due to be wiped); undefined when idle. Unfinished deletions
   * (`purgeDeletedEndpoints`) do not count: they have no deadline (their deliveries are never
   * claimed), and one a writer holds would stay "due now" however often the worker swept, so a
   * caller that schedules `runDue` by this would spin. Every sweep takes them anyway.
   */
  readonly nextWakeAt: () => Effect.Effect<number | undefined, StoreError>
  /**
   * How far behind the workers are, across all partners (an operator's figure, never shown to a
   * partner): the deliveries due by `now` that a claim would take (endpoint active, not deleted),
   * and the earliest due time among them.
   */
  readonly dueBacklog: (now: number) => Effect.Effect<DueBacklog, StoreError>

  readonly listDeliveries: (
    partnerId: PartnerId,
    filter: DeliveryFilter,
    limit: number,
    after: DeliveryCursor | undefined
  ) => Effect.Effect<DeliveryPage, StoreError>
  readonly getDelivery: (partnerId: PartnerId, id: DeliveryId) => Effect.Effect<DeliveryRecord | undefined, StoreError>
  /** Runs `rule` on the locked delivery and writes the state it returns; undefined when there is no such delivery. */
  readonly updateDelivery: <E>(
    partnerId: PartnerId,
    id: DeliveryId,
    rule: (snapshot: ReplaySnapshot) => Either.Either<DeliveryState, E>,
    now: number
  ) => Effect.Effect<Either.Either<DeliveryRecord, E> | undefined, StoreError>
  /**
   * Bulk recovery, under the endpoint lock a replay takes: decides the endpoint by `rules.endpoint`
   * (a failure is answered as it is, nothing changed), then requeues, oldest first, up to `limit`
   * of the endpoint's deliveries created in the window that are `dead_lettered` or `uncertain`,
   * each in the state `rules.delivery` decides (one it refuses stays as it is). `remaining` counts
   * the window's deliveries still in those two states afterwards. Undefined when the partner has
   * no such endpoint, deleted or not.
   */
  readonly recoverDeliveries: <E>(
    partnerId: PartnerId,
    endpointId: EndpointId,
    window: RecoveryWindow,
    limit: number,
    rules: RecoveryRules<E>,
    now: number
  ) => Effect.Effect<Either.Either<RecoveryResult, E> | undefined, StoreError>

  /**
   * Retention: removes up to `limit` finished deliveries (`delivered`, `dead_lettered`,
   * `uncertain`) created before `before`, oldest first, with their attempts; answers how many.
   * Pending and delivering ones stay, whatever their age: their work is not done. Rows another
   * writer holds are skipped, not waited for.
   */
  readonly deleteExpiredDeliveries: (before: number, limit: number) => Effect.Effect<number, StoreError>
  /**
   * Retention: removes up to `limit` events that occurred before `before` and have no delivery
   * left, oldest first; answers how many. An event outlives none of its deliveries, so the
   * delivery log never shows one whose event is gone.
   */
  readonly deleteExpiredEvents: (before: number, limit: number) => Effect.Effect<number, StoreError>
  /** When the oldest event still kept occurred; undefined when there is none. */
  readonly oldestEventAt: () => Effect.Effect<number | undefined, StoreError>
}

export class WebhookStore extends Context.Tag("@frank/core/WebhookStore")<WebhookStore, WebhookStoreShape>() {}

/**
 * The delivery queue: everything the delivery worker asks of storage, and the only port it sees.
 * Claims, sent marks, outcomes, expired leases, the next wake-up, the backlog, and the sweep's upkeep (ended
 * rotation windows, unfinished deletions, the health rule's pause).
 *
 * Unlike the other ports it serves every partner at once: a claimed delivery carries its partner
 * id from then on.
 */
import { Context, type Effect } from "effect"
import type { EndpointId, PartnerId } from "../../EntityIds.js"
import type { StoreError } from "../../StoreError.js"
import type { ClaimedDelivery, FinishedAttempt } from "../Delivery.js"
import type { WebhookEndpoint } from "../Endpoint.js"
import type { EndpointKey } from "./storeTypes.js"

/** Deliveries due and not yet attempted (`DeliveryQueue.dueBacklog`). */
export interface DueBacklog {
  readonly count: number
  /** The earliest due time among them; undefined when there are none. */
  readonly oldestDueAt: number | undefined
}

/** The delivery queue's methods: claim, sent mark, outcomes, lease expiry, wake-up, backlog. */
export interface DeliveryQueueShape {
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
   * Marks the claimed batches of these claims as handed to the network (a `sent` stamp at `now`),
   * in one write: every delivery still held under one of their claim tokens counts as sent. The
   * worker sends a claim's batch as a whole and calls it right before the first byte goes out. At
   * lease expiry only a marked delivery becomes `uncertain` (`expireLeases`).
   */
  readonly markSent: (claims: ReadonlyArray<ClaimedDelivery>, now: number) => Effect.Effect<void, StoreError>
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
   * Every delivery whose lease ran out while delivering takes the state machine's `LeaseExpired`:
   * `uncertain` with an "outcome unknown" attempt when it was marked sent (`markSent`), otherwise
   * `pending` again, due now, its attempt uncounted (one of a deleted endpoint goes with the
   * endpoint's other pending deliveries). Answers how many became `uncertain`.
   */
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
  /**
   * Wipes every previous secret whose rotation window ended by `now` (spec "Secret rotation": after
   * the window the old secret is wiped, not merely unused); answers how many.
   */
  readonly dropExpiredSecrets: (now: number) => Effect.Effect<number, StoreError>
  /**
   * Removes the pending deliveries of endpoints whose deletion committed but did not get to
   * remove them (the store stopped between its two steps; see `EndpointStore.deleteEndpoint`),
   * skipping any a writer still holds; answers how many endpoints it finished. A store that
   * deletes in one step answers 0.
   */
  readonly purgeDeletedEndpoints: (now: number) => Effect.Effect<number, StoreError>
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
}

/** The delivery queue port of the webhook store (see the module comment). */
export class DeliveryQueue extends Context.Tag("@frank/core/DeliveryQueue")<DeliveryQueue, DeliveryQueueShape>() {}

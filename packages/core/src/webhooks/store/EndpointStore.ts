/**
 * The webhook endpoints as the `Webhooks` service keeps them: register, list, read, change and
 * delete, always addressed with the partner's id. (The worker's health pause goes through the
 * `DeliveryQueue`, the only port the worker sees.)
 */
import { Context, type Effect } from "effect"
import type { EndpointId, PartnerId } from "../../EntityIds.js"
import type { StoreError } from "../../StoreError.js"
import type { WebhookEndpoint } from "../Endpoint.js"

/** The endpoint store's methods: register, list, read, change and delete a partner's endpoints. */
export interface EndpointStoreShape {
  /** Inserts unless the partner already has `maxPerPartner` endpoints; concurrent inserts cannot exceed it. */
  readonly insertEndpoint: (endpoint: WebhookEndpoint, maxPerPartner: number) => Effect.Effect<boolean, StoreError>
  /** Live (not deleted) endpoints, oldest first. */
  readonly listEndpoints: (partnerId: PartnerId) => Effect.Effect<ReadonlyArray<WebhookEndpoint>, StoreError>
  /** The partner's endpoint, or undefined (also for another partner's or a deleted one). */
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
   * Marks the endpoint deleted (its secrets wiped) and removes its pending deliveries; false when
   * there was none. A store may do it in two steps, the deletion committed first; if it stops in
   * between, the queue's `purgeDeletedEndpoints` finishes the second.
   */
  readonly deleteEndpoint: (partnerId: PartnerId, id: EndpointId, now: number) => Effect.Effect<boolean, StoreError>
}

/** The endpoints port of the webhook store (see the module comment). */
export class EndpointStore extends Context.Tag("@frank/core/EndpointStore")<EndpointStore, EndpointStoreShape>() {}

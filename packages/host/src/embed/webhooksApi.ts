/**
 * Webhook endpoints and their deliveries through Promises: register and change endpoints, list
 * deliveries, replay one, recover a window of failed ones.
 */
import { type Ids, Webhooks } from "@frank/core"
import { type Context, Effect } from "effect"
import { ids, optionalId } from "./ids.js"
import { withPartner } from "./partner.js"
import type { Run } from "./run.js"

type Service = Context.Tag.Service<typeof Webhooks.Webhooks>
type Success<F extends (...args: never) => Effect.Effect<unknown, unknown, unknown>> = Effect.Effect.Success<
  ReturnType<F>
>
/** A new endpoint: its https URL, the event types it wants (all when omitted) and its signature scheme. */
export type NewEndpoint = Parameters<Service["createEndpoint"]>[1]
/** A change of an endpoint: URL, event types, active, signature scheme. */
export type EndpointChange = Parameters<Service["updateEndpoint"]>[2]
/** An endpoint as stored, with its signing secret. */
export type WebhookEndpoint = Webhooks.WebhookEndpoint
/** A page of deliveries and the cursor of the next page. */
export type DeliveryPage = Success<Service["listDeliveries"]>
/** Which deliveries to list: one endpoint's, one status. */
export interface DeliveryFilter {
  /** Only this endpoint's deliveries. */
  readonly endpointId?: string | undefined
  /** Only deliveries in this status (`pending`, `delivered`, `dead_lettered`, …). */
  readonly status?: Webhooks.DeliveryStatus | undefined
}
/** A window of failed deliveries to requeue: ISO 8601 instants, `until` omitted meaning now. */
export type RecoveryRequest = Parameters<Service["recover"]>[2]
/** How many deliveries a recovery requeued, and how many of the window remain failed. */
export type RecoveryResult = Success<Service["recover"]>
/** The event `sendTest` enqueued and how many deliveries it made. */
export type EmittedEvent = Success<Service["sendTest"]>

/** Webhook endpoints of a partner. */
export interface FrankEndpoints {
  /** Registers an endpoint; ENDPOINT_URL_REJECTED, EVENT_TYPE_UNKNOWN or ENDPOINT_LIMIT_EXCEEDED otherwise. */
  create(partnerId: string, input: NewEndpoint): Promise<WebhookEndpoint>
  /** The partner's endpoints. */
  list(partnerId: string): Promise<ReadonlyArray<WebhookEndpoint>>
  /** One endpoint; ENDPOINT_NOT_FOUND (404) when it is not the partner's. */
  get(partnerId: string, endpointId: string): Promise<WebhookEndpoint>
  /** Changes an endpoint. */
  update(partnerId: string, endpointId: string, change: EndpointChange): Promise<WebhookEndpoint>
  /** Deletes an endpoint; its pending deliveries are not sent. */
  delete(partnerId: string, endpointId: string): Promise<void>
  /** A new signing secret; the old one keeps verifying for the rotation window. */
  rotateSecret(partnerId: string, endpointId: string): Promise<WebhookEndpoint>
  /** Enqueues a `webhook.test` event for exactly this endpoint. */
  sendTest(partnerId: string, endpointId: string): Promise<EmittedEvent>
}

/** Deliveries of a partner's events. */
export interface FrankDeliveries {
  /** A page of deliveries, newest first; pass the answer's `nextCursor` for the next page. */
  list(
    partnerId: string,
    options?: { readonly filter?: DeliveryFilter; readonly limit?: number; readonly cursor?: string }
  ): Promise<DeliveryPage>
  /** Sends a finished delivery again; DELIVERY_NOT_REPLAYABLE when it is still in flight. */
  replay(partnerId: string, deliveryId: string): Promise<Webhooks.DeliveryRecord>
  /** Requeues the endpoint's dead-lettered and uncertain deliveries created in the window. */
  recover(partnerId: string, endpointId: string, request: RecoveryRequest): Promise<RecoveryResult>
}

/** The endpoint and delivery APIs over `run`. */
export const makeWebhooksApi = (run: Run) => {
  const use = withPartner(run, Webhooks.Webhooks)
  const onEndpoint = <A, E>(
    partnerId: string,
    endpointId: string,
    f: (w: Service, partner: Ids.PartnerId, id: Ids.EndpointId) => Effect.Effect<A, E>
  ) => use(partnerId, (w, partner) => Effect.flatMap(ids.endpoint(endpointId), (id) => f(w, partner, id)))
  const endpoints: FrankEndpoints = {
    create: (partnerId, input) => use(partnerId, (w, id) => w.createEndpoint(id, input)),
    list: (partnerId) => use(partnerId, (w, id) => w.listEndpoints(id)),
    get: (partnerId, endpointId) => onEndpoint(partnerId, endpointId, (w, p, id) => w.getEndpoint(p, id)),
    update: (partnerId, endpointId, change) =>
      onEndpoint(partnerId, endpointId, (w, p, id) => w.updateEndpoint(p, id, change)),
    delete: (partnerId, endpointId) => onEndpoint(partnerId, endpointId, (w, p, id) => w.deleteEndpoint(p, id)),
    rotateSecret: (partnerId, endpointId) => onEndpoint(partnerId, endpointId, (w, p, id) => w.rotateSecret(p, id)),
    sendTest: (partnerId, endpointId) => onEndpoint(partnerId, endpointId, (w, p, id) => w.sendTest(p, id))
  }
  const deliveries: FrankDeliveries = {
    list: (partnerId, options = {}) =>
      use(partnerId, (w, id) =>
        Effect.flatMap(optionalId(options.filter?.endpointId, ids.endpoint), (endpointId) =>
          w.listDeliveries(id, { endpointId, status: options.filter?.status }, options.limit, options.cursor)
        )
      ),
    replay: (partnerId, deliveryId) =>
      use(partnerId, (w, id) => Effect.flatMap(ids.delivery(deliveryId), (d) => w.replay(id, d))),
    recover: (partnerId, endpointId, request) =>
      onEndpoint(partnerId, endpointId, (w, p, id) => w.recover(p, id, request))
  }
  return { endpoints, deliveries }
}

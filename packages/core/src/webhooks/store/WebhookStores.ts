/**
 * The storage of webhooks, split by caller into four ports: `EndpointStore` and `DeliveryLog`
 * (the `Webhooks` service), `DeliveryQueue` (the delivery worker, which sees nothing else) and
 * `WebhookRetentionStore` (`WebhookRetention`). Events are written through the outbox's
 * `EventStore`, which every webhook store implements too: an event fans out into deliveries in
 * the same statement.
 *
 * Adapters implement all of them over one storage (memory for simulations, SQL on Postgres and
 * PGlite) and provide them with one layer; one contract suite holds both to the same behaviour.
 */
import { Context } from "effect"
import { EventStore, type EventStoreShape } from "../../events/EventStore.js"
import { DeliveryLog, type DeliveryLogShape } from "./DeliveryLog.js"
import { DeliveryQueue, type DeliveryQueueShape } from "./DeliveryQueue.js"
import { EndpointStore, type EndpointStoreShape } from "./EndpointStore.js"
import { WebhookRetentionStore, type WebhookRetentionStoreShape } from "./WebhookRetentionStore.js"

/** The four webhook store ports. */
export type WebhookStores = EndpointStore | DeliveryQueue | DeliveryLog | WebhookRetentionStore

/** One storage's implementations of the four ports and of the outbox's `EventStore`. */
export interface WebhookStoresShape {
  readonly endpoints: EndpointStoreShape
  readonly queue: DeliveryQueueShape
  readonly log: DeliveryLogShape
  readonly retention: WebhookRetentionStoreShape
  readonly events: EventStoreShape
}

/** The context a webhook store's layer provides: the four ports and the `EventStore`. */
export const webhookStoresContext = (stores: WebhookStoresShape): Context.Context<WebhookStores | EventStore> =>
  Context.make(EndpointStore, stores.endpoints).pipe(
    Context.add(DeliveryQueue, stores.queue),
    Context.add(DeliveryLog, stores.log),
    Context.add(WebhookRetentionStore, stores.retention),
    Context.add(EventStore, stores.events)
  )

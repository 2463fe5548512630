/**
 * A webhook engine around one `DeliveryWorker` for tests that drive `run` themselves: the given
 * worker config, store and transport, deterministic ids, private URLs allowed.
 */
import { Access, Events, Ids, Webhooks } from "@frank/core"
import { Layer, Redacted } from "effect"
import type { EventStore, WebhookStores } from "@frank/core/stores"

export const workerEngine = <E>(
  config: Webhooks.DeliveryWorkerConfig,
  store: Layer.Layer<WebhookStores | EventStore, E>,
  transport: Layer.Layer<Webhooks.WebhookTransport>
) =>
  Layer.mergeAll(Webhooks.Webhooks.layer, Webhooks.DeliveryWorker.layer(config)).pipe(
    Layer.provideMerge(Events.Outbox.layer),
    Layer.provideMerge(store),
    Layer.provideMerge(
      Layer.mergeAll(
        Ids.Ids.layerDeterministic("worker-engine"),
        Access.Secrets.layer(Redacted.make("pepper")),
        Events.DeliveryWakeup.layer,
        Webhooks.WebhookSettings.layer({ allowPrivateNetwork: true }),
        transport
      )
    )
  )

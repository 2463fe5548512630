/**
 * A webhook engine around one `DeliveryWorker` for tests that drive `run` themselves: the given
 * worker config, store and transport, deterministic ids, private URLs allowed.
 */
import {
  DeliveryWakeup,
  DeliveryWorker,
  type EventStore,
  type DeliveryWorkerConfig,
  Ids,
  Outbox,
  Secrets,
  Webhooks,
  WebhookSettings,
  type WebhookStore,
  type WebhookTransport
} from "@frank/core"
import { Layer, Redacted } from "effect"

export const workerEngine = <E>(
  config: DeliveryWorkerConfig,
  store: Layer.Layer<WebhookStore | EventStore, E>,
  transport: Layer.Layer<WebhookTransport>
) =>
  Layer.mergeAll(Webhooks.layer, DeliveryWorker.layer(config)).pipe(
    Layer.provideMerge(Outbox.layer),
    Layer.provideMerge(store),
    Layer.provideMerge(
      Layer.mergeAll(
        Ids.layerDeterministic("worker-engine"),
        Secrets.layer(Redacted.make("pepper")),
        DeliveryWakeup.layer,
        WebhookSettings.layer({ allowPrivateNetwork: true }),
        transport
      )
    )
  )

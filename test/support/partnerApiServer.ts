/**
 * The partner API served in-process (the way an embedder mounts it) over the engine stores a
 * test chooses (memory, PGlite, PostgreSQL), with everything else on memory, and an HttpClient
 * bound to it: for contract suites that hold the HTTP answers to the same behaviour on every store.
 */
import { HttpApiBuilder } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { MemoryAccessStores, MemoryRateLimitStore, MemorySandboxAcquirerStore, SandboxAcquirer } from "@frank/adapters"
import {
  Access,
  defaultRateLimitConfig,
  defaultTariffConfig,
  Ids,
  Ledger,
  Outbox,
  Payments,
  Pricing,
  RateLimiter,
  sampleCatalog,
  Secrets,
  Tariffs,
  Webhooks,
  WebhookSettings
} from "@frank/core"
import { ErrorEnvelopesLive, frankServerMiddleware, PartnerApiLive, SecuritySettings } from "@frank/core/http"
import {
  type EngineStores,
  FilesOnMemory,
  InvoicesOnMemory,
  MemoryPaymentStore,
  TasksOnMemory
} from "@frank/core/testing"
import { Layer, Redacted } from "effect"

export const partnerApiServer = (stores: Layer.Layer<EngineStores, unknown>) => {
  const services = Layer.mergeAll(
    Ledger.layer,
    Access.layer,
    RateLimiter.layer(defaultRateLimitConfig),
    Tariffs.layer(defaultTariffConfig),
    Webhooks.layer
  ).pipe(
    Layer.provideMerge(Outbox.layerWithWakeup),
    Layer.provideMerge(Layer.mergeAll(stores, MemoryAccessStores, MemoryRateLimitStore)),
    Layer.provideMerge(
      Layer.mergeAll(
        Ids.layer,
        Secrets.layer(Redacted.make("pepper")),
        Pricing.layerFromCatalog(sampleCatalog),
        Layer.succeed(SecuritySettings, { trustProxy: false }),
        WebhookSettings.layer({ allowPrivateNetwork: false })
      )
    )
  )
  const topUps = Payments.layer.pipe(
    Layer.provide(SandboxAcquirer.layer({ baseUrl: "http://embedded.test", secret: Redacted.make("sandbox") })),
    Layer.provide(Layer.mergeAll(MemoryPaymentStore, MemorySandboxAcquirerStore))
  )
  return HttpApiBuilder.serve(frankServerMiddleware()).pipe(
    Layer.provide(ErrorEnvelopesLive),
    Layer.provide(PartnerApiLive),
    Layer.provideMerge(topUps),
    Layer.provideMerge(InvoicesOnMemory),
    Layer.provideMerge(FilesOnMemory()),
    Layer.provideMerge(TasksOnMemory()),
    Layer.provideMerge(services),
    Layer.provideMerge(NodeHttpServer.layerTest)
  )
}

/**
 * The partner API served in-process (the way an embedder mounts it) over the engine stores a
 * test chooses (memory, PGlite, PostgreSQL), with everything else on memory, and an HttpClient
 * bound to it: for contract suites that hold the HTTP answers to the same behaviour on every store.
 */
import { HttpApiBuilder } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { MemoryAccessStores, MemoryRateLimitStore, MemorySandboxAcquirerStore, SandboxAcquirer } from "@frank/adapters"
import { Access, Audit, Events, Ids, Ledger, Payments, Pricing, RateLimit, Tariffs, Webhooks } from "@frank/core"
import { ErrorEnvelopesLive, frankServerMiddleware, PartnerApiLive, SecuritySettings } from "@frank/core/http"
import {
  type EngineStores,
  FilesOnMemory,
  InvoicesOnMemory,
  MemoryAuditStore,
  MemoryPaymentStore,
  TasksOnMemory
} from "@frank/core/testing"
import { Layer, Redacted } from "effect"
import type { AuditStore } from "@frank/core/stores"

/** `audit`: where the audit log is kept (memory unless the test gives a SQL store over its database). */
export const partnerApiServer = (
  stores: Layer.Layer<EngineStores, unknown>,
  audit: Layer.Layer<AuditStore, unknown> = MemoryAuditStore
) => {
  const services = Layer.mergeAll(
    Ledger.Ledger.layer,
    Audit.AuditedAccess.pipe(Layer.provide(Access.Access.layer)),
    RateLimit.RateLimiter.layer(RateLimit.defaultRateLimitConfig),
    Tariffs.Tariffs.layer(Tariffs.defaultTariffConfig),
    Audit.AuditedWebhooks.pipe(Layer.provide(Webhooks.Webhooks.layer))
  ).pipe(
    Layer.provideMerge(Audit.AuditLog.layer),
    Layer.provideMerge(Events.Outbox.layerWithWakeup),
    Layer.provideMerge(Layer.mergeAll(stores, audit, MemoryAccessStores.layer, MemoryRateLimitStore.layer)),
    Layer.provideMerge(
      Layer.mergeAll(
        Ids.Ids.layer,
        Access.Secrets.layer(Redacted.make("pepper")),
        Pricing.Pricing.layerFromCatalog(Pricing.sampleCatalog),
        Layer.succeed(SecuritySettings, { trustProxy: false }),
        Webhooks.WebhookSettings.layer({ allowPrivateNetwork: false })
      )
    )
  )
  const topUps = Audit.AuditedPayments.pipe(
    Layer.provide(Payments.Payments.layer),
    Layer.provide(SandboxAcquirer.layer({ baseUrl: "http://embedded.test", secret: Redacted.make("sandbox") })),
    Layer.provide(Layer.mergeAll(MemoryPaymentStore, MemorySandboxAcquirerStore.layer))
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

/**
 * The engine of the reference host: SQL stores and the core services on top of them. Everything
 * here is the same code an embedder wires into their own backend.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import {
  httpWebhookTransportLayer,
  NodeSecrets,
  NodeWebhookSigner,
  SandboxAcquirer,
  SandboxBank,
  sandboxBankLayer,
  SqlAccessStores,
  SqlInvoiceStores,
  SqlLedgerStore,
  SqlPaymentStore,
  SqlRateLimitStore,
  SqlSandboxAcquirerStore,
  pgNotifyAnnouncerLayer,
  sqlWebhookStoreLayer
} from "@frank/adapters"
import {
  Access,
  type Catalog,
  DAY_MS,
  DeliveryWakeup,
  type DisablePolicy,
  decodeCatalog,
  defaultRateLimitConfig,
  DeliveryWorker,
  defaultTariffConfig,
  defaultWorkerConfig,
  Ids,
  Invoices,
  Ledger,
  Pricing,
  RateLimiter,
  sampleCatalog,
  scaleRateLimits,
  Tariffs,
  Outbox,
  Payments,
  Webhooks,
  WebhookRetention,
  WebhookSettings
} from "@frank/core"
import {
  fileBlobStoreLayer,
  guardedDispatcherLayer,
  httpMediaFetcherLayer,
  NodeMediaProbe,
  SqlStoredFileStore
} from "@frank/adapters"
import { DEFAULT_MAX_CONCURRENT_IMPORTS, ImportSettings, StoredFiles, StoredFileUrls } from "@frank/core"
import { SandboxGeneration, sandboxGenerationLayer, SqlTaskStore } from "@frank/adapters"
import { Tasks, TaskSettings } from "@frank/core"
import { SecuritySettings } from "@frank/core/http"
import { Context, Duration, Effect, Either, Layer, Option, type Redacted } from "effect"
import type { HostConfigShape } from "./config/HostConfig.js"
import { deliveryObserverLayer } from "./metrics/webhookMetrics.js"
import { sandboxAcquirerConfig } from "./sandbox/sandboxAcquirerConfig.js"
import type { NotifyOrigin } from "./workers/notifyOrigin.js"

export const loadCatalog = (path: Option.Option<string>): Effect.Effect<Catalog, Error> =>
  Option.match(path, {
    onNone: () => Effect.succeed(sampleCatalog),
    onSome: (file) =>
      Effect.try({
        try: () => JSON.parse(readFileSync(file, "utf8")) as unknown,
        catch: (e) => new Error(`FRANK_PRICING_CATALOG: cannot read ${file}: ${String(e)}`)
      }).pipe(
        Effect.flatMap((json) =>
          Either.match(decodeCatalog(json), {
            onLeft: (e) => Effect.fail(new Error(`FRANK_PRICING_CATALOG (${file}): ${e.message}`)),
            onRight: Effect.succeed
          })
        )
      )
  })

/**
 * What the engine offers the rest of the host: the core's public services and the sandbox
 * controls. Stores, signer, transport and settings stay inside the engine.
 */
export type EngineServices =
  | Ledger
  | Access
  | RateLimiter
  | Tariffs
  | Pricing
  | Webhooks
  | DeliveryWorker
  | WebhookRetention
  | DeliveryWakeup
  | Payments
  | Invoices
  | Tasks
  | StoredFiles
  | SecuritySettings
  | SandboxAcquirer
  | SandboxBank
  | SandboxGeneration

/** The engine with only `EngineServices` visible; `notifyOrigin`: what this instance's webhook NOTIFYs carry. */
export const engineLayer = (
  config: HostConfigShape,
  pepper: Redacted.Redacted<string>,
  catalog: Catalog,
  notifyOrigin: NotifyOrigin
) =>
  Layer.effectContext(
    // Picked at run time too: Effect.context alone would pass every store through.
    Effect.map(
      Effect.context<EngineServices>(),
      Context.pick(
        Ledger,
        Access,
        RateLimiter,
        Tariffs,
        Pricing,
        Webhooks,
        DeliveryWorker,
        WebhookRetention,
        DeliveryWakeup,
        Payments,
        Invoices,
        Tasks,
        StoredFiles,
        SecuritySettings,
        SandboxAcquirer,
        SandboxBank,
        SandboxGeneration
      )
    )
  ).pipe(Layer.provide(engineWiring(config, pepper, catalog, notifyOrigin)))

const engineWiring = (
  config: HostConfigShape,
  pepper: Redacted.Redacted<string>,
  catalog: Catalog,
  notifyOrigin: NotifyOrigin
) => {
  // Every service wakes the worker in-process after its commit. On Postgres the outbox also
  // announces to other instances after commit (one coalesced NOTIFY at a time), not inside each
  // business transaction, where NOTIFY would make Postgres commit them one at a time. On the
  // embedded database this process is the only one: nothing to announce.
  const announcer =
    config.databaseUrl._tag === "Some" ? pgNotifyAnnouncerLayer({ payload: notifyOrigin.payload }) : Layer.empty
  const webhookStore = sqlWebhookStoreLayer({ notify: "none" })
  const stores = Layer.mergeAll(
    SqlLedgerStore,
    SqlAccessStores,
    SqlRateLimitStore,
    webhookStore,
    announcer,
    SqlPaymentStore,
    SqlSandboxAcquirerStore,
    SqlInvoiceStores
  )
  const services = Layer.mergeAll(
    Ledger.layer,
    Access.layer,
    RateLimiter.layer(scaleRateLimits(defaultRateLimitConfig, config.rateLimitMultiplier)),
    Tariffs.layer(defaultTariffConfig),
    Webhooks.layer,
    DeliveryWorker.layer({ ...defaultWorkerConfig, disableFailing: disablePolicy(config) }),
    WebhookRetention.layer()
  )
  const settings = { allowPrivateNetwork: config.allowPrivateNetwork }
  // Top-ups run over the ledger; the sandbox acquirer is the PaymentProvider.
  const topUps = Payments.layer.pipe(Layer.provideMerge(SandboxAcquirer.layer(sandboxAcquirerConfig(config, pepper))))
  // Legal invoices run over the ledger; the sandbox bank is the BankGateway.
  const invoicing = Invoices.layer.pipe(Layer.provideMerge(sandboxBankLayer({ publicBaseUrl: config.publicBaseUrl })))
  return Layer.mergeAll(topUps, invoicing).pipe(
    Layer.provideMerge(tasksLayer(config)),
    Layer.provideMerge(services),
    // One outbox and one wake-up signal shared by the ledger, the webhook service and the worker.
    Layer.provideMerge(Outbox.layerWithWakeup),
    Layer.provideMerge(filesLayer(config)),
    Layer.provideMerge(stores),
    Layer.provideMerge(
      Layer.mergeAll(
        Ids.layer,
        NodeSecrets(pepper),
        NodeWebhookSigner,
        Pricing.layerFromCatalog(catalog),
        Layer.succeed(SecuritySettings, { trustProxy: config.trustProxy, trustedOrigins: [config.publicBaseUrl] }),
        WebhookSettings.layer({ ...settings, retentionDays: config.webhookRetentionDays }),
        httpWebhookTransportLayer(settings),
        // The worker's reports become /metrics counters (Metrics is provided below the engine).
        deliveryObserverLayer
      )
    )
  )
}

/** FRANK_WEBHOOK_DISABLE_AFTER_DAYS and FRANK_WEBHOOK_DISABLE_MIN_FAILURES as the worker's health rule. */
export const disablePolicy = (config: HostConfigShape): DisablePolicy | false =>
  config.webhookDisableAfterDays === 0
    ? false
    : { afterMs: config.webhookDisableAfterDays * DAY_MS, minFailures: config.webhookDisableMinFailures }

/**
 * Media import: stored-file records in SQL (also the StoredFileLookup generation tasks use), bytes
 * under FRANK_DATA_DIR/files (downloads spool in files/.spool, on the same filesystem, so a
 * finished download is moved into place), downloads through a guarded agent of their own (a slow
 * source cannot take connection slots from webhook deliveries), the Node probe, and file URLs
 * served by this host under FRANK_PUBLIC_BASE_URL. Needs Ids, Secrets and SqlClient from below.
 */
export const filesLayer = (config: HostConfigShape) => {
  const root = join(config.dataDir, "files")
  const settings = { allowPrivateNetwork: config.allowPrivateNetwork }
  return StoredFiles.layer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        SqlStoredFileStore,
        fileBlobStoreLayer(root),
        httpMediaFetcherLayer({ spoolDir: join(root, ".spool") }).pipe(Layer.provide(guardedDispatcherLayer(settings))),
        NodeMediaProbe,
        ImportSettings.layer({ ...settings, maxConcurrentImports: DEFAULT_MAX_CONCURRENT_IMPORTS }),
        StoredFileUrls.layerHostServed(config.publicBaseUrl)
      )
    )
  )
}

/**
 * Generation tasks: the SQL task store, the sandbox generation provider (FRANK_SANDBOX_TASK_SECONDS;
 * 0 leaves tasks to the admin controls) and result links under FRANK_PUBLIC_BASE_URL. At start,
 * tasks a previous run left queued or running are handed to the provider again. Needs the ledger,
 * outbox, tariffs, pricing, ids and a StoredFileLookup from the engine below it.
 */
export const tasksLayer = (config: HostConfigShape) => {
  const tasks = Tasks.layer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        SqlTaskStore,
        sandboxGenerationLayer({
          autoCompleteAfter: config.sandboxTaskSeconds === 0 ? undefined : Duration.seconds(config.sandboxTaskSeconds)
        }),
        TaskSettings.layer({ publicBaseUrl: config.publicBaseUrl })
      )
    )
  )
  const resume = Layer.effectDiscard(
    Effect.flatMap(Tasks, (t) => t.resumeUnfinished).pipe(
      Effect.tap((n) =>
        n > 0
          ? Effect.logInfo("unfinished generation tasks handed to the provider again").pipe(
              Effect.annotateLogs({ tasks: n })
            )
          : Effect.void
      )
    )
  )
  return resume.pipe(Layer.provideMerge(tasks))
}

/**
 * The engine of the reference host: SQL stores and the core services on top of them. Everything
 * here is the same code an embedder wires into their own backend.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import {
  FileBlobStore,
  GuardedDispatcher,
  HttpMediaFetcher,
  HttpWebhookTransport,
  NodeMediaProbe,
  NodeSecrets,
  NodeWebhookSigner,
  PgNotifyAnnouncer,
  SandboxAcquirer,
  SandboxBank,
  SandboxGeneration,
  SqlAccessStores,
  SqlIdempotencyStore,
  SqlAuditStore,
  SqlInvoiceStores,
  SqlLedgerStore,
  SqlPaymentStore,
  SqlRateLimitCounters,
  SqlSandboxAcquirerStore,
  SqlStoredFileStore,
  SqlTaskStore,
  SqlWebhookStore
} from "@frank/adapters"
import {
  Access,
  Audit,
  Events,
  Files,
  Ids,
  Invoices,
  Ledger,
  Payments,
  Pricing,
  RateLimit,
  Tariffs,
  Tasks,
  Time,
  Webhooks
} from "@frank/core"

// biome-ignore lint/correctness/noUnusedImports: the declaration emit names StoreError in this module's inferred types through it
import type { Errors } from "@frank/core"
import { Idempotency, SecuritySettings } from "@frank/core/http"
import { Context, Duration, Effect, Either, Layer, Option, type Redacted } from "effect"
import type { HostConfigShape } from "./config/HostConfig.js"
import { withIdempotencyFault } from "./faults/idempotencyFault.js"
import { taskCounters } from "./metrics/taskMetrics.js"
import { deliveryObserverLayer } from "./metrics/webhookMetrics.js"
import { sandboxAcquirerConfig } from "./sandbox/sandboxAcquirerConfig.js"
import type { NotifyOrigin } from "./workers/notifyOrigin.js"

export const loadCatalog = (path: Option.Option<string>): Effect.Effect<Pricing.Catalog, Error> =>
  Option.match(path, {
    onNone: () => Effect.succeed(Pricing.sampleCatalog),
    onSome: (file) =>
      Effect.try({
        try: () => JSON.parse(readFileSync(file, "utf8")) as unknown,
        catch: (e) => new Error(`FRANK_PRICING_CATALOG: cannot read ${file}: ${String(e)}`)
      }).pipe(
        Effect.flatMap((json) =>
          Either.match(Pricing.decodeCatalog(json), {
            onLeft: (e) => Effect.fail(new Error(`FRANK_PRICING_CATALOG (${file}): ${e.message}`)),
            onRight: Effect.succeed
          })
        )
      )
  })

/**
 * What the engine offers the rest of the host: the core's public services and the sandbox
 * controls. Stores, signer, transport and settings stay inside the engine. Declared once: the
 * type and the run-time pick below both follow from this list.
 */
const engineServices = [
  Ledger.Ledger,
  Ledger.GrantExpiry,
  Access.Access,
  Audit.AuditLog,
  RateLimit.RateLimiter,
  Tariffs.Tariffs,
  Pricing.Pricing,
  Webhooks.Webhooks,
  Webhooks.DeliveryWorker,
  Webhooks.WebhookRetention,
  Events.DeliveryWakeup,
  Payments.Payments,
  Invoices.Invoices,
  Tasks.Tasks,
  Tasks.TaskExpiry,
  Files.StoredFiles,
  Idempotency.IdempotencyStore,
  SecuritySettings,
  SandboxAcquirer.SandboxAcquirer,
  SandboxBank.SandboxBank,
  SandboxGeneration.SandboxGeneration
]

export type EngineServices = Context.Tag.Identifier<(typeof engineServices)[number]>

/** How an engine differs from the host's own: an embedder on the app's pool announces without a URL. */
export interface EngineOptions {
  /** NOTIFY other instances after commits (PostgreSQL); by default when DATABASE_URL is set. */
  readonly announce?: boolean | undefined
  /** The delivery worker's settings over `Webhooks.defaultWorkerConfig`. */
  readonly worker?: Partial<Webhooks.DeliveryWorkerConfig> | undefined
}

/** The engine with only `EngineServices` visible; `notifyOrigin`: what this instance's webhook NOTIFYs carry. */
export const engineLayer = (
  config: HostConfigShape,
  pepper: Redacted.Redacted<string>,
  catalog: Pricing.Catalog,
  notifyOrigin: NotifyOrigin,
  options: EngineOptions = {}
) =>
  Layer.effectContext(
    // Picked at run time too: Effect.context alone would pass every store through.
    Effect.map(Effect.context<EngineServices>(), Context.pick(...engineServices))
  ).pipe(Layer.provide(engineWiring(config, pepper, catalog, notifyOrigin, options)))

const engineWiring = (
  config: HostConfigShape,
  pepper: Redacted.Redacted<string>,
  catalog: Pricing.Catalog,
  notifyOrigin: NotifyOrigin,
  options: EngineOptions
) => {
  // Every service wakes the worker in-process after its commit. On Postgres the outbox also
  // announces to other instances after commit (one coalesced NOTIFY at a time), not inside each
  // business transaction, where NOTIFY would make Postgres commit them one at a time. On the
  // embedded database this process is the only one: nothing to announce.
  const announce = options.announce ?? config.databaseUrl._tag === "Some"
  const announcer = announce ? PgNotifyAnnouncer.layer({ payload: notifyOrigin.payload }) : Layer.empty
  const webhookStore = SqlWebhookStore.layerWith({ notify: "none" })
  const stores = Layer.mergeAll(
    SqlLedgerStore.layer,
    SqlAccessStores.layer,
    // Rate-limit counters in memory, shared through SQL every 250 ms (docs/decisions.md).
    RateLimit.BufferedRateLimitStore.layer().pipe(Layer.provide(SqlRateLimitCounters.layer)),
    webhookStore,
    announcer,
    SqlPaymentStore.layer,
    SqlSandboxAcquirerStore.layer,
    SqlInvoiceStores.layer,
    withIdempotencyFault(SqlIdempotencyStore.layer),
    SqlAuditStore.layer
  )
  const services = Layer.mergeAll(
    Ledger.GrantExpiry.layer().pipe(Layer.provideMerge(Audit.AuditedLedger.pipe(Layer.provide(Ledger.Ledger.layer)))),
    // Changes through Ledger (credits, alerts), Access, Webhooks, Payments and Invoices are
    // audited, whoever calls them.
    Audit.AuditedAccess.pipe(Layer.provide(Access.Access.layer)),
    RateLimit.RateLimiter.layer(
      RateLimit.scaleRateLimits(RateLimit.defaultRateLimitConfig, config.rateLimitMultiplier)
    ),
    Tariffs.Tariffs.layer(Tariffs.defaultTariffConfig),
    Audit.AuditedWebhooks.pipe(Layer.provide(Webhooks.Webhooks.layer)),
    Webhooks.DeliveryWorker.layer({
      ...Webhooks.defaultWorkerConfig,
      disableFailing: disablePolicy(config),
      ...options.worker
    }),
    Webhooks.WebhookRetention.layer()
  )
  const settings = { allowPrivateNetwork: config.allowPrivateNetwork }
  // Top-ups run over the ledger; the sandbox acquirer is the PaymentProvider.
  const topUps = Audit.AuditedPayments.pipe(
    Layer.provide(Payments.Payments.layer),
    Layer.provideMerge(SandboxAcquirer.layer(sandboxAcquirerConfig(config, pepper)))
  )
  // Legal invoices run over the ledger; the sandbox bank is the BankGateway.
  const invoicing = Audit.AuditedInvoices.pipe(
    Layer.provide(Invoices.Invoices.layer),
    Layer.provideMerge(SandboxBank.layer({ publicBaseUrl: config.publicBaseUrl }))
  )
  return Layer.mergeAll(topUps, invoicing).pipe(
    Layer.provideMerge(tasksLayer(config)),
    Layer.provideMerge(services),
    // Below the services it records for, above the outbox it wakes after a commit.
    Layer.provideMerge(
      Audit.AuditLog.layerWith({ ...Audit.defaultAuditConfig, retentionDays: config.auditRetentionDays })
    ),
    // One outbox and one wake-up signal shared by the ledger, the webhook service and the worker.
    Layer.provideMerge(Events.Outbox.layerWithWakeup),
    Layer.provideMerge(filesLayer(config)),
    Layer.provideMerge(stores),
    Layer.provideMerge(
      Layer.mergeAll(
        Ids.Ids.layer,
        NodeSecrets.layer(pepper),
        NodeWebhookSigner.layer,
        Pricing.Pricing.layerFromCatalog(catalog),
        Layer.succeed(SecuritySettings, { trustProxy: config.trustProxy, trustedOrigins: [config.publicBaseUrl] }),
        Webhooks.WebhookSettings.layer({
          ...settings,
          retentionDays: config.webhookRetentionDays,
          recoveredPerCall: config.webhookRecoveredPerCall
        }),
        HttpWebhookTransport.layerWith(settings),
        // The worker's reports become /metrics counters (Metrics is provided below the engine).
        deliveryObserverLayer
      )
    )
  )
}

/** FRANK_WEBHOOK_DISABLE_AFTER_DAYS and FRANK_WEBHOOK_DISABLE_MIN_FAILURES as the worker's health rule. */
export const disablePolicy = (config: HostConfigShape): Webhooks.DisablePolicy | false =>
  config.webhookDisableAfterDays === 0
    ? false
    : { afterMs: config.webhookDisableAfterDays * Time.DAY_MS, minFailures: config.webhookDisableMinFailures }

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
  return Files.StoredFiles.layer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        SqlStoredFileStore.layer,
        FileBlobStore.layer(root),
        HttpMediaFetcher.layer({ spoolDir: join(root, ".spool") }).pipe(
          Layer.provide(GuardedDispatcher.layer(settings))
        ),
        NodeMediaProbe.layer,
        Files.ImportSettings.layer({ ...settings, maxConcurrentImports: Files.DEFAULT_MAX_CONCURRENT_IMPORTS }),
        Files.StoredFileUrls.layerHostServed(config.publicBaseUrl)
      )
    )
  )
}

/**
 * Generation tasks: the SQL task store, the sandbox generation provider (FRANK_SANDBOX_TASK_SECONDS;
 * 0 leaves tasks to the admin controls), result links under FRANK_PUBLIC_BASE_URL, holds lapsing
 * FRANK_TASK_HOLD_TTL_SECONDS after launch (the expiry sweep: workers/taskExpirySweeper.ts) and
 * their counters on /metrics. At start, tasks a previous run left queued or running are handed
 * to the provider again. Needs the ledger, outbox, tariffs, pricing, ids, a StoredFileLookup and
 * Metrics from below.
 */
export const tasksLayer = (config: HostConfigShape) => {
  const tasks = Tasks.TaskExpiry.layer().pipe(
    Layer.provideMerge(Tasks.Tasks.layer),
    Layer.provideMerge(
      Layer.mergeAll(
        SqlTaskStore.layer,
        SandboxGeneration.layerWith({
          autoCompleteAfter: config.sandboxTaskSeconds === 0 ? undefined : Duration.seconds(config.sandboxTaskSeconds)
        }),
        Layer.unwrapEffect(
          Effect.map(taskCounters, (observer) =>
            Tasks.TaskSettings.layer({
              publicBaseUrl: config.publicBaseUrl,
              holdTtlMs: config.taskHoldTtlSeconds * 1000,
              observer
            })
          )
        )
      )
    )
  )
  const resume = Layer.effectDiscard(
    Effect.flatMap(Tasks.Tasks, (t) => t.resumeUnfinished).pipe(
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

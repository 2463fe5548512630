/**
 * What `createFrank` takes, and the host configuration it becomes: the embedded engine is the
 * reference host's engine (engine.ts), so the options map onto the same settings.
 */
import { schema } from "./database.js"
import { resolve } from "node:path"
import { type Pricing, Webhooks } from "@frank/core"
import type { TracerProvider } from "@opentelemetry/api"
import { Option, Redacted } from "effect"
import type { HostConfigShape } from "../config/HostConfig.js"
import type { DatabaseOptions, FrankDatabase } from "./database.js"

/** Everything but the database. */
export interface FrankSettings extends DatabaseOptions {
  /** The HMAC pepper of API key hashes and signed links: a long random secret, kept. */
  readonly pepper: string
  /** Where browsers and API clients reach your application, e.g. `https://app.example.com`. */
  readonly publicBaseUrl: string
  /**
   * Where `frank.fetch` and `frank.node` serve Frank in your application (default: the root):
   * the partner API at `{basePath}/v1/…`, the cabinet at `{basePath}/cabinet`.
   */
  readonly basePath?: string | undefined
  /**
   * Serve the operator's admin API too, at `{basePath}/admin/v1/…`, to requests bearing
   * `Authorization: Bearer <token>` (a long random secret, not empty). Off when omitted: those
   * paths answer 404.
   */
  readonly admin?: { readonly token: string } | undefined
  /** Frank's directory for imported media (`<dataDir>/files`); default the `embedded` one, else `./.frank`. */
  readonly dataDir?: string | undefined
  /** Take the client IP and host from X-Forwarded-For / -Host (behind your proxy). */
  readonly trustProxy?: boolean | undefined
  /** Development only: webhooks and imports may reach http:// and private addresses. */
  readonly allowPrivateNetwork?: boolean | undefined
  /** The price catalog (default: the bundled sample). */
  readonly pricingCatalog?: Pricing.Catalog | undefined
  /** Days webhook events and finished deliveries are kept (default 30). */
  readonly webhookRetentionDays?: number | undefined
  /** Deliveries one webhook recovery call requeues at most (default and most 10,000). */
  readonly webhookRecoveredPerCall?: number | undefined
  /** Days the audit log keeps its records (default 365). */
  readonly auditRetentionDays?: number | undefined
  /** Seconds a task's reservation lives before the expiry sweep refunds it (default 86400). */
  readonly taskHoldTtlSeconds?: number | undefined
  /** Seconds a sandbox generation task takes to succeed by itself; 0: never (default 5). */
  readonly sandboxTaskSeconds?: number | undefined
  /** Multiplies every rate limit of the partner API (default 1). */
  readonly rateLimitMultiplier?: number | undefined
  /** The delivery worker's settings (concurrency, poll interval, lease, …) over its defaults. */
  readonly worker?: Partial<Webhooks.DeliveryWorkerConfig> | undefined
  /**
   * Your OpenTelemetry tracer provider (e.g. `trace.getTracerProvider()` after your SDK's
   * setup): Frank's spans — ledger commands, outbox writes, webhook fan-out, a client span per
   * delivery attempt linked to the span that wrote the event, and the server span of requests
   * served by `fetch`/`node` — go to it, under the span active when you call a method. Omitted:
   * Frank makes no spans.
   */
  readonly tracerProvider?: TracerProvider | undefined
}

/** The options of `createFrank`: one database (`pool`, `databaseUrl` or `embedded`) and the settings. */
export type FrankOptions = FrankDatabase & FrankSettings

/** `basePath` normalised: empty for the root, else `/a/b` without a trailing slash. */
export const basePathOf = (options: FrankSettings): string => {
  const trimmed = (options.basePath ?? "").replace(/\/+$/, "")
  return trimmed === "" ? "" : trimmed.startsWith("/") ? trimmed : `/${trimmed}`
}

/** The host configuration the engine reads; its public base URL is where Frank itself is served. */
export const hostConfigOf = (options: FrankOptions): HostConfigShape => {
  const base = options.publicBaseUrl.replace(/\/+$/, "")
  const dataDir =
    options.dataDir ?? (options.embedded !== undefined && options.embedded !== "memory" ? options.embedded : ".frank")
  return {
    port: 0,
    host: "127.0.0.1",
    databaseUrl: options.databaseUrl === undefined ? Option.none() : Option.some(Redacted.make(options.databaseUrl)),
    dataDir: resolve(dataDir),
    dbSchema: schema(options),
    adminToken: options.admin === undefined ? Option.none() : Option.some(Redacted.make(options.admin.token)),
    publicBaseUrl: `${base}${basePathOf(options)}`,
    keyPepper: Option.some(Redacted.make(options.pepper)),
    pricingCatalog: Option.none(),
    trustProxy: options.trustProxy ?? false,
    // The embedder's own server decides cross-origin access.
    corsOrigins: [],
    allowPrivateNetwork: options.allowPrivateNetwork ?? false,
    logLevel: "info",
    rateLimitMultiplier: options.rateLimitMultiplier ?? 1,
    sandboxClock: false,
    sandboxTaskSeconds: options.sandboxTaskSeconds ?? 5,
    maxBodyBytes: 1024 * 1024,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    webhookRetentionDays: options.webhookRetentionDays ?? 30,
    webhookRecoveredPerCall: options.webhookRecoveredPerCall ?? Webhooks.MAX_RECOVERED_PER_CALL,
    auditRetentionDays: options.auditRetentionDays ?? 365,
    taskHoldTtlSeconds: options.taskHoldTtlSeconds ?? 86_400,
    webhookDisableAfterDays: 5,
    webhookDisableMinFailures: 10
  }
}

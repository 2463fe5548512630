/**
 * The reference host's configuration, from the environment (docs/contract.md §6).
 *
 * | variable                      | default                 | meaning                                        |
 * |-------------------------------|-------------------------|------------------------------------------------|
 * | `PORT`                        | 8080                    | listen port                                    |
 * | `HOST`                        | 127.0.0.1               | listen address                                 |
 * | `DATABASE_URL`                | (unset: embedded PGlite)| Postgres URL, redacted in logs                 |
 * | `FRANK_DB_SCHEMA`             | frank                   | the schema holding all of Frank's tables       |
 * | `FRANK_DATA_DIR`              | ./.frank (made absolute)| embedded database, generated secrets           |
 * | `FRANK_ADMIN_TOKEN`           | (unset: generated)      | bearer token of the admin API                  |
 * | `FRANK_PUBLIC_BASE_URL`       | http://HOST:PORT        | the URL clients reach the host at              |
 * | `FRANK_KEY_PEPPER`            | (unset: generated)      | HMAC pepper of API key hashes                  |
 * | `FRANK_PRICING_CATALOG`       | (unset: bundled sample) | path of the pricing catalog (made absolute)    |
 * | `FRANK_TRUST_PROXY`           | false                   | take the client IP from X-Forwarded-For        |
 * | `FRANK_CORS_ORIGINS`          | (unset: no CORS)        | comma-separated browser origins allowed to     |
 * |                               |                         | call the API (`https://app.example.com`)       |
 * | `FRANK_ALLOW_PRIVATE_NETWORK` | false                   | development only: http:// and private targets  |
 * | `LOG_LEVEL`                   | info                    | debug, info, warning or error                  |
 * | `FRANK_RATE_LIMIT_MULTIPLIER` | 1                       | multiplies every rate limit (benchmarks only)  |
 * | `FRANK_SANDBOX_CLOCK`         | false                   | sandbox only: admin API may move the clock     |
 * | `FRANK_SANDBOX_TASK_SECONDS`  | 5                       | sandbox tasks succeed after this many seconds; |
 * |                               |                         | 0: only the admin controls finish them         |
 * | `FRANK_MAX_BODY_BYTES`        | 1048576 (1 MiB)         | larger request bodies answer 413               |
 * | `FRANK_HEADERS_TIMEOUT_MS`    | 10000                   | a client must send its headers within this     |
 * | `FRANK_REQUEST_TIMEOUT_MS`    | 30000                   | ... and its whole request within this; an      |
 * |                               |                         | answer not ready by then is a 503              |
 * | `FRANK_WEBHOOK_RETENTION_DAYS`| 30                      | webhook events and finished deliveries older   |
 * |                               |                         | than this are removed (1..3650)                |
 * | `FRANK_WEBHOOK_RECOVER_PER_CALL` | 10000                | deliveries one recovery call requeues at most  |
 * |                               |                         | (1..10000)                                     |
 * | `FRANK_AUDIT_RETENTION_DAYS`  | 365                     | audit records older than this are removed      |
 * |                               |                         | (1..3650)                                      |
 * | `FRANK_WEBHOOK_DISABLE_AFTER_DAYS`   | 5                | pause an endpoint failing this long; 0: never  |
 * | `FRANK_WEBHOOK_DISABLE_MIN_FAILURES` | 10               | ... with at least this many dead letters       |
 * | `FRANK_TASK_HOLD_TTL_SECONDS` | 86400                   | an unfinished task's hold lapses this long     |
 * |                               |                         | after launch (60..2592000)                     |
 *
 * Invalid values fail the start with a ConfigError naming the variable, e.g.
 * `Invalid data at PORT: "Expected a network port value but received "abc""`.
 *
 * An empty variable counts as unset for the optional ones: shells and compose files often export
 * `FRANK_ADMIN_TOKEN=` and an empty admin token must never become a valid bearer token.
 */
import { resolve } from "node:path"
import { DatabaseSchema } from "@frank/adapters"
import { Audit, Time, Webhooks } from "@frank/core"
import { Config, ConfigError, Context, Either, Layer, Option, Redacted } from "effect"
import { urlHost } from "./urlHost.js"

export const LOG_LEVELS = ["debug", "info", "warning", "error"] as const
export type HostLogLevel = (typeof LOG_LEVELS)[number]

export interface HostConfigShape {
  readonly port: number
  readonly host: string
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  /** The PostgreSQL schema of every Frank object, on PostgreSQL and on PGlite alike. */
  readonly dbSchema: string
  /** Absolute. */
  readonly dataDir: string
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  /** Without a trailing slash. */
  readonly publicBaseUrl: string
  readonly keyPepper: Option.Option<Redacted.Redacted<string>>
  /** Absolute when set. */
  readonly pricingCatalog: Option.Option<string>
  readonly trustProxy: boolean
  /** Browser origins (`scheme://host[:port]`) the API answers cross-origin requests of; empty: none. */
  readonly corsOrigins: ReadonlyArray<string>
  readonly allowPrivateNetwork: boolean
  readonly logLevel: HostLogLevel
  /**
   * Multiplies every rate limit. 1 in production; load benchmarks raise it so that the limiter
   * (still fully exercised) does not turn the measurement into a 429 count.
   */
  readonly rateLimitMultiplier: number
  /** Sandbox only: lets the admin API move the host's clock forward. */
  readonly sandboxClock: boolean
  /** Seconds a sandbox generation task runs before it succeeds by itself; 0: it waits for an admin control. */
  readonly sandboxTaskSeconds: number
  /** Request bodies over this answer 413, refused while they stream. */
  readonly maxBodyBytes: number
  /** Slow clients are dropped: the headers must arrive within the first, the whole request within the second. */
  readonly headersTimeoutMs: number
  readonly requestTimeoutMs: number
  /** Days webhook events and finished deliveries are kept (WebhookSettings.retentionDays). */
  readonly webhookRetentionDays: number
  /** Deliveries one recovery call requeues at most (WebhookSettings.recoveredPerCall). */
  readonly webhookRecoveredPerCall: number
  /** Days audit records are kept (AuditConfig.retentionDays). */
  readonly auditRetentionDays: number
  /**
   * The endpoint-health rule: an endpoint whose dead letters began this many days ago (0: never
   * pause) and number at least `webhookDisableMinFailures` is paused.
   */
  readonly webhookDisableAfterDays: number
  readonly webhookDisableMinFailures: number
  /** Seconds after launch an unfinished task fails TASK_EXPIRED and its hold is refunded (TaskSettings.holdTtlMs). */
  readonly taskHoldTtlSeconds: number
}

/** The bounds of FRANK_TASK_HOLD_TTL_SECONDS: a minute (the sweep's interval) to 30 days. */
export const MIN_TASK_HOLD_TTL_SECONDS = 60
export const MAX_TASK_HOLD_TTL_SECONDS = 30 * 86_400

/** The longest retention FRANK_WEBHOOK_RETENTION_DAYS accepts: ten years, beyond which a value is a typo. */
export const MAX_WEBHOOK_RETENTION_DAYS = 3650

/** An optional variable where the empty string means "not set". */
const optionalString = (name: string) =>
  Config.option(Config.string(name)).pipe(Config.map(Option.filter((s) => s.trim().length > 0)))

const optionalSecret = (name: string) =>
  Config.option(Config.redacted(name)).pipe(Config.map(Option.filter((r) => Redacted.value(r).trim().length > 0)))

const flag = (name: string) => Config.boolean(name).pipe(Config.withDefault(false))

/** LOG_LEVEL, case-insensitive; `warn` is accepted for `warning` as many tools spell it so. */
const logLevel = Config.string("LOG_LEVEL").pipe(
  Config.mapOrFail((s) => {
    const l = s.trim().toLowerCase()
    const level = l === "warn" ? "warning" : l
    return isLogLevel(level)
      ? Either.right(level)
      : // Empty path: mapOrFail on a primitive prefixes the variable's name itself.
        Either.left(ConfigError.InvalidData([], `Expected one of (${LOG_LEVELS.join(", ")}) but received "${s}"`))
  }),
  Config.withDefault<HostLogLevel>("info")
)

const isLogLevel = (s: string): s is HostLogLevel => (LOG_LEVELS as ReadonlyArray<string>).includes(s)

/** FRANK_DB_SCHEMA: a name DatabaseSchema accepts (lower-case, unquoted), `frank` when unset or empty. */
const dbSchema = optionalString("FRANK_DB_SCHEMA").pipe(
  Config.mapOrFail((o) => {
    const name = Option.getOrElse(
      Option.map(o, (s) => s.trim()),
      () => DatabaseSchema.DEFAULT_SCHEMA
    )
    const invalid = DatabaseSchema.invalidSchemaName(name)
    // Named explicitly: behind Config.option the path is not prefixed.
    return invalid === undefined
      ? Either.right(name)
      : Either.left(ConfigError.InvalidData(["FRANK_DB_SCHEMA"], invalid))
  })
)

/** Config.url alone would accept `mailto:x`; the base URL is where HTTP clients are sent. */
const publicBaseUrl = optionalString("FRANK_PUBLIC_BASE_URL").pipe(
  Config.mapOrFail((o) => {
    if (Option.isNone(o)) return Either.right(Option.none<string>())
    const u = URL.canParse(o.value) ? new URL(o.value) : undefined
    if (u === undefined || (u.protocol !== "http:" && u.protocol !== "https:"))
      // Named explicitly: behind Config.option the path is not prefixed.
      return Either.left(
        ConfigError.InvalidData(["FRANK_PUBLIC_BASE_URL"], `Expected an http(s) URL but received "${o.value}"`)
      )
    return Either.right(Option.some(u.toString().replace(/\/+$/, "")))
  })
)

/** FRANK_CORS_ORIGINS: a comma-separated list of exact origins (no path, no trailing slash). */
const corsOrigins = optionalString("FRANK_CORS_ORIGINS").pipe(
  Config.mapOrFail((o) => {
    const origins = Option.match(o, { onNone: () => [], onSome: (s) => s.split(",").map((x) => x.trim()) }).filter(
      (x) => x.length > 0
    )
    const bad = origins.filter((x) => {
      try {
        return new URL(x).origin !== x
      } catch {
        return true
      }
    })
    return bad.length === 0
      ? Either.right(origins)
      : Either.left(
          ConfigError.InvalidData(
            ["FRANK_CORS_ORIGINS"],
            `Expected origins like https://app.example.com, got ${bad.join(", ")}`
          )
        )
  })
)

export const hostConfig: Config.Config<HostConfigShape> = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(8080)),
  host: optionalString("HOST").pipe(Config.map(Option.getOrElse(() => "127.0.0.1"))),
  databaseUrl: optionalSecret("DATABASE_URL"),
  dbSchema,
  dataDir: optionalString("FRANK_DATA_DIR").pipe(Config.map((d) => resolve(Option.getOrElse(d, () => "./.frank")))),
  adminToken: optionalSecret("FRANK_ADMIN_TOKEN"),
  publicBaseUrl,
  keyPepper: optionalSecret("FRANK_KEY_PEPPER"),
  // Resolved now: relative to where the operator started the host, not to a later cwd.
  pricingCatalog: optionalString("FRANK_PRICING_CATALOG").pipe(Config.map(Option.map((p) => resolve(p)))),
  trustProxy: flag("FRANK_TRUST_PROXY"),
  corsOrigins,
  allowPrivateNetwork: flag("FRANK_ALLOW_PRIVATE_NETWORK"),
  logLevel,
  rateLimitMultiplier: Config.integer("FRANK_RATE_LIMIT_MULTIPLIER").pipe(
    Config.validate({ message: "Expected a positive integer", validation: (n) => n >= 1 }),
    Config.withDefault(1)
  ),
  sandboxClock: flag("FRANK_SANDBOX_CLOCK"),
  sandboxTaskSeconds: Config.integer("FRANK_SANDBOX_TASK_SECONDS").pipe(
    Config.validate({
      message: `Expected an integer between 0 and ${Time.DAY_SECONDS}`,
      validation: (n) => n >= 0 && n <= Time.DAY_SECONDS
    }),
    Config.withDefault(5)
  ),
  maxBodyBytes: Config.integer("FRANK_MAX_BODY_BYTES").pipe(
    Config.validate({ message: "Expected a positive integer", validation: (n) => n >= 1 }),
    Config.withDefault(1024 * 1024)
  ),
  headersTimeoutMs: Config.integer("FRANK_HEADERS_TIMEOUT_MS").pipe(
    Config.validate({ message: "Expected a positive integer", validation: (n) => n >= 1 }),
    Config.withDefault(10_000)
  ),
  requestTimeoutMs: Config.integer("FRANK_REQUEST_TIMEOUT_MS").pipe(
    Config.validate({ message: "Expected a positive integer", validation: (n) => n >= 1 }),
    Config.withDefault(30_000)
  ),
  webhookRetentionDays: Config.integer("FRANK_WEBHOOK_RETENTION_DAYS").pipe(
    Config.validate({
      message: `Expected an integer between 1 and ${MAX_WEBHOOK_RETENTION_DAYS}`,
      validation: (n) => n >= 1 && n <= MAX_WEBHOOK_RETENTION_DAYS
    }),
    Config.withDefault(Webhooks.DEFAULT_RETENTION_DAYS)
  ),
  webhookRecoveredPerCall: Config.integer("FRANK_WEBHOOK_RECOVER_PER_CALL").pipe(
    Config.validate({
      message: `Expected an integer between 1 and ${Webhooks.MAX_RECOVERED_PER_CALL}`,
      validation: (n) => n >= 1 && n <= Webhooks.MAX_RECOVERED_PER_CALL
    }),
    Config.withDefault(Webhooks.MAX_RECOVERED_PER_CALL)
  ),
  auditRetentionDays: Config.integer("FRANK_AUDIT_RETENTION_DAYS").pipe(
    Config.validate({
      message: `Expected an integer between 1 and ${MAX_WEBHOOK_RETENTION_DAYS}`,
      validation: (n) => n >= 1 && n <= MAX_WEBHOOK_RETENTION_DAYS
    }),
    Config.withDefault(Audit.defaultAuditConfig.retentionDays)
  ),
  webhookDisableAfterDays: Config.integer("FRANK_WEBHOOK_DISABLE_AFTER_DAYS").pipe(
    Config.validate({ message: "Expected an integer between 0 and 365", validation: (n) => n >= 0 && n <= 365 }),
    Config.withDefault(5)
  ),
  webhookDisableMinFailures: Config.integer("FRANK_WEBHOOK_DISABLE_MIN_FAILURES").pipe(
    Config.validate({ message: "Expected a positive integer", validation: (n) => n >= 1 }),
    Config.withDefault(10)
  ),
  taskHoldTtlSeconds: Config.integer("FRANK_TASK_HOLD_TTL_SECONDS").pipe(
    Config.validate({
      message: `Expected an integer between ${MIN_TASK_HOLD_TTL_SECONDS} and ${MAX_TASK_HOLD_TTL_SECONDS}`,
      validation: (n) => n >= MIN_TASK_HOLD_TTL_SECONDS && n <= MAX_TASK_HOLD_TTL_SECONDS
    }),
    // A day, core's default (TaskSettings).
    Config.withDefault(86_400)
  )
}).pipe(
  // node:http requires it, and a request cannot finish before its headers have.
  Config.validate({
    message: "Expected FRANK_HEADERS_TIMEOUT_MS to be at most FRANK_REQUEST_TIMEOUT_MS",
    validation: (c) => c.headersTimeoutMs <= c.requestTimeoutMs
  }),
  Config.map(
    (c): HostConfigShape => ({
      ...c,
      publicBaseUrl: Option.getOrElse(c.publicBaseUrl, () => `http://${urlHost(c.host)}:${c.port}`)
    })
  )
)

export class HostConfig extends Context.Tag("@frank/host/HostConfig")<HostConfig, HostConfigShape>() {
  /** Reads the environment (the current ConfigProvider); fails with the ConfigError naming the variable. */
  static readonly layer: Layer.Layer<HostConfig, ConfigError.ConfigError> = Layer.effect(HostConfig, hostConfig)
}

/**
 * The reference host's configuration, from the environment (ARCHITECTURE §6). Invalid values stop
 * the start with a message naming the variable.
 */
import { resolve } from "node:path"
import { Config, Context, Effect, Layer, Option, Redacted } from "effect"

export interface HostConfigShape {
  readonly port: number
  readonly host: string
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  readonly dataDir: string
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  readonly publicBaseUrl: string
  readonly keyPepper: Option.Option<Redacted.Redacted<string>>
  readonly pricingCatalog: Option.Option<string>
  readonly trustProxy: boolean
  readonly allowPrivateNetwork: boolean
  readonly logLevel: "debug" | "info" | "warning" | "error"
  /** Multiplies every rate limit (benchmarks raise limits with it); 1 in production. */
  readonly rateLimitMultiplier: number
  /** Sandbox only: lets the admin API move the host's clock forward. */
  readonly sandboxClock: boolean
}

export const hostConfig: Config.Config<HostConfigShape> = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(8080)),
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")).pipe(
    // An empty DATABASE_URL means "not set", as shells often export empty variables.
    Config.map((o) => Option.filter(o, (r) => Redacted.value(r).length > 0))
  ),
  dataDir: Config.string("FRANK_DATA_DIR").pipe(Config.withDefault("./.frank"), Config.map((d) => resolve(d))),
  adminToken: Config.option(Config.redacted("FRANK_ADMIN_TOKEN")),
  publicBaseUrl: Config.option(Config.url("FRANK_PUBLIC_BASE_URL")).pipe(Config.map(Option.map((u) => u.toString().replace(/\/$/, "")))),
  keyPepper: Config.option(Config.redacted("FRANK_KEY_PEPPER")),
  pricingCatalog: Config.option(Config.string("FRANK_PRICING_CATALOG")),
  trustProxy: Config.boolean("FRANK_TRUST_PROXY").pipe(Config.withDefault(false)),
  allowPrivateNetwork: Config.boolean("FRANK_ALLOW_PRIVATE_NETWORK").pipe(Config.withDefault(false)),
  logLevel: Config.literal("debug", "info", "warning", "error")("LOG_LEVEL").pipe(Config.withDefault("info" as const)),
  rateLimitMultiplier: Config.integer("FRANK_RATE_LIMIT_MULTIPLIER").pipe(
    Config.withDefault(1),
    Config.validate({ message: "FRANK_RATE_LIMIT_MULTIPLIER must be a positive integer", validation: (n) => n >= 1 })
  ),
  sandboxClock: Config.boolean("FRANK_SANDBOX_CLOCK").pipe(Config.withDefault(false))
}).pipe(
  Config.map((c) => ({
    ...c,
    publicBaseUrl: Option.getOrElse(c.publicBaseUrl, () => `http://${c.host}:${c.port}`)
  }))
)

export class HostConfig extends Context.Tag("@frank/host/HostConfig")<HostConfig, HostConfigShape>() {
  static readonly layer = Layer.effect(HostConfig, Effect.orDie(hostConfig))
}

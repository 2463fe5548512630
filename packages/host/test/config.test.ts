/**
 * The host's environment (docs/contract.md §6): defaults, derived values, refusals naming the
 * variable, and the JSON logging LOG_LEVEL selects.
 */
import { resolve } from "node:path"
import { describe, expect, it, vi } from "@effect/vitest"
import { Cause, ConfigProvider, Effect, Exit, Layer, Option, Redacted } from "effect"
import { HostConfig, hostConfig } from "../src/config/HostConfig.js"
import { disablePolicy } from "../src/engine.js"
import { jsonLogging } from "../src/logging/jsonLogger.js"

const fromEnv = (env: Record<string, string>) =>
  hostConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

/** The failure message of reading `env`, which must exist. */
const refusal = (env: Record<string, string>) => Effect.map(Effect.flip(fromEnv(env)), (e) => String(e))

describe("HostConfig", () => {
  it.effect("defaults: 127.0.0.1:8080, embedded database, ./.frank made absolute, info", () =>
    Effect.gen(function* () {
      const c = yield* fromEnv({})
      expect(c.port).toBe(8080)
      expect(c.host).toBe("127.0.0.1")
      expect(Option.isNone(c.databaseUrl)).toBe(true)
      expect(c.dataDir).toBe(resolve("./.frank"))
      expect(Option.isNone(c.adminToken)).toBe(true)
      expect(Option.isNone(c.keyPepper)).toBe(true)
      expect(Option.isNone(c.pricingCatalog)).toBe(true)
      expect(c.publicBaseUrl).toBe("http://127.0.0.1:8080")
      expect(c.trustProxy).toBe(false)
      expect(c.allowPrivateNetwork).toBe(false)
      expect(c.logLevel).toBe("info")
      expect(c.rateLimitMultiplier).toBe(1)
      expect(c.sandboxClock).toBe(false)
    })
  )

  it.effect("derives the public base URL from HOST and PORT unless given; paths become absolute", () =>
    Effect.gen(function* () {
      const c = yield* fromEnv({
        HOST: "0.0.0.0",
        PORT: "9000",
        FRANK_DATA_DIR: "data",
        FRANK_PRICING_CATALOG: "cat.json"
      })
      expect(c.port).toBe(9000)
      expect(c.publicBaseUrl).toBe("http://0.0.0.0:9000")
      expect(c.dataDir).toBe(resolve("data"))
      expect(c.pricingCatalog).toEqual(Option.some(resolve("cat.json")))
      expect((yield* fromEnv({ HOST: "::1" })).publicBaseUrl).toBe("http://[::1]:8080")
      expect((yield* fromEnv({ FRANK_PUBLIC_BASE_URL: "https://billing.example.com/" })).publicBaseUrl).toBe(
        "https://billing.example.com"
      )
    })
  )

  it.effect("an invalid PORT fails naming the variable", () =>
    Effect.gen(function* () {
      expect(yield* refusal({ PORT: "abc" })).toMatch(/PORT.*abc/)
      expect(yield* refusal({ PORT: "70000" })).toMatch(/PORT/)
    })
  )

  it.effect("booleans accept true/false spellings and refuse anything else by name", () =>
    Effect.gen(function* () {
      const on = yield* fromEnv({ FRANK_TRUST_PROXY: "true", FRANK_ALLOW_PRIVATE_NETWORK: "1" })
      expect([on.trustProxy, on.allowPrivateNetwork]).toEqual([true, true])
      const off = yield* fromEnv({ FRANK_TRUST_PROXY: "false", FRANK_ALLOW_PRIVATE_NETWORK: "no" })
      expect([off.trustProxy, off.allowPrivateNetwork]).toEqual([false, false])
      expect(yield* refusal({ FRANK_TRUST_PROXY: "maybe" })).toMatch(/FRANK_TRUST_PROXY.*maybe/)
    })
  )

  it.effect("secrets: unset or empty is none, set is redacted and never printed", () =>
    Effect.gen(function* () {
      const empty = yield* fromEnv({ FRANK_ADMIN_TOKEN: "", FRANK_KEY_PEPPER: "  ", DATABASE_URL: "" })
      expect([empty.adminToken, empty.keyPepper, empty.databaseUrl].every(Option.isNone)).toBe(true)
      const set = yield* fromEnv({
        FRANK_ADMIN_TOKEN: "tok-123",
        FRANK_KEY_PEPPER: "pep-456",
        DATABASE_URL: "postgres://u:pw@db/frank"
      })
      expect(Option.map(set.adminToken, Redacted.value)).toEqual(Option.some("tok-123"))
      expect(Option.map(set.keyPepper, Redacted.value)).toEqual(Option.some("pep-456"))
      expect(Option.map(set.databaseUrl, Redacted.value)).toEqual(Option.some("postgres://u:pw@db/frank"))
      const printed = `${String(set.adminToken)} ${JSON.stringify(set)}`
      expect(printed).not.toContain("tok-123")
      expect(printed).not.toContain("pw@db")
    })
  )

  it.effect(
    "FRANK_DB_SCHEMA: frank when unset or empty, else a lower-case unquoted name, refused by name otherwise",
    () =>
      Effect.gen(function* () {
        expect((yield* fromEnv({})).dbSchema).toBe("frank")
        expect((yield* fromEnv({ FRANK_DB_SCHEMA: " " })).dbSchema).toBe("frank")
        expect((yield* fromEnv({ FRANK_DB_SCHEMA: "billing_2" })).dbSchema).toBe("billing_2")
        expect(yield* refusal({ FRANK_DB_SCHEMA: "Billing" })).toMatch(/FRANK_DB_SCHEMA.*lower-case/)
        expect(yield* refusal({ FRANK_DB_SCHEMA: "pg_frank" })).toMatch(/FRANK_DB_SCHEMA.*reserved/)
      })
  )

  it.effect("LOG_LEVEL is case-insensitive, takes warn for warning, and refuses others by name", () =>
    Effect.gen(function* () {
      expect((yield* fromEnv({ LOG_LEVEL: "DEBUG" })).logLevel).toBe("debug")
      expect((yield* fromEnv({ LOG_LEVEL: "warn" })).logLevel).toBe("warning")
      expect(yield* refusal({ LOG_LEVEL: "verbose" })).toMatch(/LOG_LEVEL.*debug, info, warning, error/)
    })
  )

  it.effect("FRANK_RATE_LIMIT_MULTIPLIER is a positive integer", () =>
    Effect.gen(function* () {
      expect((yield* fromEnv({ FRANK_RATE_LIMIT_MULTIPLIER: "50" })).rateLimitMultiplier).toBe(50)
      expect(yield* refusal({ FRANK_RATE_LIMIT_MULTIPLIER: "0" })).toMatch(
        /FRANK_RATE_LIMIT_MULTIPLIER.*positive integer/
      )
      expect(yield* refusal({ FRANK_RATE_LIMIT_MULTIPLIER: "1.5" })).toMatch(/FRANK_RATE_LIMIT_MULTIPLIER/)
    })
  )

  it.effect("FRANK_WEBHOOK_RETENTION_DAYS: 30 by default, a whole number of days from 1 to 3650", () =>
    Effect.gen(function* () {
      expect((yield* fromEnv({})).webhookRetentionDays).toBe(30)
      expect((yield* fromEnv({ FRANK_WEBHOOK_RETENTION_DAYS: "7" })).webhookRetentionDays).toBe(7)
      expect((yield* fromEnv({ FRANK_WEBHOOK_RETENTION_DAYS: "3650" })).webhookRetentionDays).toBe(3650)
      for (const bad of ["0", "-1", "3651", "1.5", "month"])
        expect(yield* refusal({ FRANK_WEBHOOK_RETENTION_DAYS: bad }), bad).toMatch(/FRANK_WEBHOOK_RETENTION_DAYS/)
      expect(yield* refusal({ FRANK_WEBHOOK_RETENTION_DAYS: "0" })).toContain("between 1 and 3650")
    })
  )

  it.effect("FRANK_WEBHOOK_RECOVER_PER_CALL: 10000 by default, a whole number from 1 to 10000", () =>
    Effect.gen(function* () {
      expect((yield* fromEnv({})).webhookRecoveredPerCall).toBe(10_000)
      expect((yield* fromEnv({ FRANK_WEBHOOK_RECOVER_PER_CALL: "1" })).webhookRecoveredPerCall).toBe(1)
      for (const bad of ["0", "10001", "2.5", "all"])
        expect(yield* refusal({ FRANK_WEBHOOK_RECOVER_PER_CALL: bad }), bad).toMatch(/FRANK_WEBHOOK_RECOVER_PER_CALL/)
      expect(yield* refusal({ FRANK_WEBHOOK_RECOVER_PER_CALL: "0" })).toContain("between 1 and 10000")
    })
  )

  it.effect("FRANK_PUBLIC_BASE_URL must be an http(s) URL", () =>
    Effect.gen(function* () {
      expect(yield* refusal({ FRANK_PUBLIC_BASE_URL: "not a url" })).toMatch(/FRANK_PUBLIC_BASE_URL/)
      expect(yield* refusal({ FRANK_PUBLIC_BASE_URL: "mailto:ops@example.com" })).toMatch(
        /FRANK_PUBLIC_BASE_URL.*http\(s\)/
      )
    })
  )

  it.effect("every invalid variable is reported, not only the first", () =>
    Effect.map(refusal({ PORT: "x", LOG_LEVEL: "y" }), (message) => {
      expect(message).toContain("PORT")
      expect(message).toContain("LOG_LEVEL")
    })
  )

  it.effect("request limits: 1 MiB bodies, 10 s for headers, 30 s for the request; invalid values refused", () =>
    Effect.gen(function* () {
      const c = yield* fromEnv({})
      expect([c.maxBodyBytes, c.headersTimeoutMs, c.requestTimeoutMs]).toEqual([1024 * 1024, 10_000, 30_000])
      const set = yield* fromEnv({
        FRANK_MAX_BODY_BYTES: "65536",
        FRANK_HEADERS_TIMEOUT_MS: "2000",
        FRANK_REQUEST_TIMEOUT_MS: "5000"
      })
      expect([set.maxBodyBytes, set.headersTimeoutMs, set.requestTimeoutMs]).toEqual([65536, 2000, 5000])
      expect(yield* refusal({ FRANK_MAX_BODY_BYTES: "0" })).toContain("FRANK_MAX_BODY_BYTES")
      expect(yield* refusal({ FRANK_HEADERS_TIMEOUT_MS: "40000" })).toContain(
        "FRANK_HEADERS_TIMEOUT_MS to be at most FRANK_REQUEST_TIMEOUT_MS"
      )
    })
  )

  it.effect(
    "endpoint health: pause after 5 days and 10 dead letters by default; 0 days turns it off; refusals by name",
    () =>
      Effect.gen(function* () {
        const c = yield* fromEnv({})
        expect([c.webhookDisableAfterDays, c.webhookDisableMinFailures]).toEqual([5, 10])
        expect(disablePolicy(c)).toEqual({ afterMs: 5 * 86_400_000, minFailures: 10 })
        const set = yield* fromEnv({ FRANK_WEBHOOK_DISABLE_AFTER_DAYS: "2", FRANK_WEBHOOK_DISABLE_MIN_FAILURES: "3" })
        expect(disablePolicy(set)).toEqual({ afterMs: 2 * 86_400_000, minFailures: 3 })
        expect(disablePolicy(yield* fromEnv({ FRANK_WEBHOOK_DISABLE_AFTER_DAYS: "0" }))).toBe(false)
        expect(yield* refusal({ FRANK_WEBHOOK_DISABLE_AFTER_DAYS: "-1" })).toContain("FRANK_WEBHOOK_DISABLE_AFTER_DAYS")
        expect(yield* refusal({ FRANK_WEBHOOK_DISABLE_AFTER_DAYS: "1.5" })).toContain(
          "FRANK_WEBHOOK_DISABLE_AFTER_DAYS"
        )
        expect(yield* refusal({ FRANK_WEBHOOK_DISABLE_MIN_FAILURES: "0" })).toContain(
          "FRANK_WEBHOOK_DISABLE_MIN_FAILURES"
        )
      })
  )

  it.effect("task holds lapse a day after launch by default; FRANK_TASK_HOLD_TTL_SECONDS within 60..30 days", () =>
    Effect.gen(function* () {
      expect((yield* fromEnv({})).taskHoldTtlSeconds).toBe(86_400)
      expect((yield* fromEnv({ FRANK_TASK_HOLD_TTL_SECONDS: "600" })).taskHoldTtlSeconds).toBe(600)
      for (const bad of ["59", "2592001", "1.5", "soon"])
        expect(yield* refusal({ FRANK_TASK_HOLD_TTL_SECONDS: bad })).toContain("FRANK_TASK_HOLD_TTL_SECONDS")
    })
  )

  it.effect("HostConfig.layer reads the installed ConfigProvider and fails on invalid values", () =>
    Effect.gen(function* () {
      const provider = (env: Record<string, string>) =>
        Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))
      const c = yield* Effect.provide(HostConfig, HostConfig.layer.pipe(Layer.provide(provider({ PORT: "8181" }))))
      expect(c.port).toBe(8181)
      const exit = yield* Effect.exit(
        Effect.provide(HostConfig, HostConfig.layer.pipe(Layer.provide(provider({ PORT: "nope" }))))
      )
      expect(Exit.isFailure(exit)).toBe(true)
    })
  )
})

describe("JSON logging (LOG_LEVEL)", () => {
  /** Runs `effect` with jsonLogging(level), returning what it wrote with console.log (stdout). */
  const capture = <A, E>(level: Parameters<typeof jsonLogging>[0], effect: Effect.Effect<A, E>) =>
    Effect.acquireUseRelease(
      Effect.sync(() => vi.spyOn(console, "log").mockImplementation(() => {})),
      (spy) =>
        Effect.map(Effect.provide(effect, jsonLogging(level)), () =>
          spy.mock.calls.map((args) => args.map(String).join(" "))
        ),
      (spy) => Effect.sync(() => spy.mockRestore())
    )

  it.effect("one JSON line per entry (the default logger is replaced), annotations as top-level fields", () =>
    Effect.gen(function* () {
      const lines = yield* capture(
        "info",
        Effect.logInfo("request").pipe(
          Effect.annotateLogs({ requestId: "r-1", method: "GET", route: "/v1/x/:id", status: 200, durationMs: 12 })
        )
      )
      expect(lines).toHaveLength(1)
      const entry = JSON.parse(lines[0]!)
      expect(entry).toMatchObject({
        level: "INFO",
        message: "request",
        requestId: "r-1",
        method: "GET",
        route: "/v1/x/:id",
        status: 200,
        durationMs: 12
      })
      expect(typeof entry.timestamp).toBe("string")
    })
  )

  it.effect("the minimum level drops lower entries; errors and bigints stay readable", () =>
    Effect.gen(function* () {
      const lines = yield* capture(
        "warning",
        Effect.all([
          Effect.logInfo("dropped"),
          Effect.logDebug("dropped too"),
          Effect.logWarning("kept", new Error("disk full")),
          Effect.logError("failed", { n: 10n })
        ])
      )
      expect(lines.map((l) => JSON.parse(l).level)).toEqual(["WARN", "ERROR"])
      expect(JSON.parse(lines[0]!).message).toEqual(["kept", { name: "Error", message: "disk full" }])
      expect(JSON.parse(lines[1]!).message).toEqual(["failed", { n: "10" }])
    })
  )

  it.effect("a failure's cause is a field of the line", () =>
    Effect.gen(function* () {
      const lines = yield* capture("debug", Effect.logError("request failed", Cause.fail("boom")))
      expect(JSON.parse(lines[0]!).cause).toContain("boom")
    })
  )
})

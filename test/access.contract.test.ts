/**
 * The access contract on memory, PGlite, and PostgreSQL when DATABASE_URL is set; plus two rate
 * limiters sharing one SQL store.
 */
import {
  MemoryAccessStores,
  MemoryRateLimitStore,
  pgliteTestDatabase,
  postgresTestDatabase,
  SqlAccessStores,
  SqlRateLimitStore
} from "@frank/adapters"
import { defaultRateLimitConfig, RateLimiter } from "@frank/core"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, TestClock } from "effect"
import { accessContract } from "./contract/accessContract.js"

accessContract("memory", Layer.merge(MemoryAccessStores, MemoryRateLimitStore))
accessContract("PGlite", Layer.merge(SqlAccessStores, SqlRateLimitStore).pipe(Layer.provide(pgliteTestDatabase())))
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  accessContract(
    "PostgreSQL",
    Layer.merge(SqlAccessStores, SqlRateLimitStore).pipe(Layer.provide(postgresTestDatabase(url)))
  )

class TwoInstances extends Context.Tag("TwoInstances")<
  TwoInstances,
  { a: RateLimiter["Type"]; b: RateLimiter["Type"] }
>() {}

// Two limiter instances (two host processes) on one SQL store share their counters exactly.
const config = { ...defaultRateLimitConfig, perApiKeyPerMinute: 10 }
const TwoLimiters = Layer.effect(
  TwoInstances,
  Effect.gen(function* () {
    const a = yield* Effect.provide(RateLimiter, RateLimiter.layer(config).pipe(Layer.provide(SqlRateLimitStore)))
    const b = yield* Effect.provide(RateLimiter, RateLimiter.layer(config).pipe(Layer.provide(SqlRateLimitStore)))
    return { a, b }
  })
).pipe(Layer.provide(pgliteTestDatabase()))

layer(TwoLimiters, { timeout: 120_000 })("rate limiter instances on one SQL store", (it) => {
  it.effect("share one counter: 10 allowed in total across both, then both refuse", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2026, 10, 2, 9, 0, 10))
      const { a, b } = yield* TwoInstances
      const req = { method: "GET", route: "/v1/billing/balance", ip: "203.0.113.9", apiKeyId: "shared-key" }
      const results = yield* Effect.all(
        Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? a : b).check(req)),
        { concurrency: 4 }
      )
      expect(results.filter((r) => r.allowed)).toHaveLength(10)
      expect((yield* a.check(req)).allowed).toBe(false)
      expect((yield* b.check(req)).allowed).toBe(false)
    })
  )
})

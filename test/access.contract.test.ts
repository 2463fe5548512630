/**
 * The access contract on memory, PGlite, and PostgreSQL when DATABASE_URL is set; plus two rate
 * limiters sharing one SQL store.
 */
import {
  MemoryAccessStores,
  MemoryRateLimitStore,
  SqlAccessStores,
  SqlRateLimitCounters,
  SqlRateLimitStore,
  TestDatabase
} from "@frank/adapters"
import { RateLimit } from "@frank/core"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer, TestClock } from "effect"
import { accessContract } from "./contract/accessContract.js"

accessContract("memory", Layer.merge(MemoryAccessStores.layer, MemoryRateLimitStore.layer))
accessContract(
  "PGlite",
  Layer.merge(SqlAccessStores.layer, SqlRateLimitStore.layer).pipe(Layer.provide(TestDatabase.layerPglite()))
)
// The host's store: counters in memory, shared through SQL in batches.
const buffered = RateLimit.BufferedRateLimitStore.layer().pipe(Layer.provide(SqlRateLimitCounters.layer))
accessContract(
  "PGlite, buffered limits",
  Layer.merge(SqlAccessStores.layer, buffered).pipe(Layer.provide(TestDatabase.layerPglite()))
)
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0) {
  accessContract(
    "PostgreSQL",
    Layer.merge(SqlAccessStores.layer, SqlRateLimitStore.layer).pipe(Layer.provide(TestDatabase.layerPostgres(url)))
  )
  accessContract(
    "PostgreSQL, buffered limits",
    Layer.merge(SqlAccessStores.layer, buffered).pipe(Layer.provide(TestDatabase.layerPostgres(url)))
  )
}

class TwoInstances extends Context.Tag("TwoInstances")<
  TwoInstances,
  { a: RateLimit.RateLimiter["Type"]; b: RateLimit.RateLimiter["Type"] }
>() {}

// Two limiter instances (two host processes) on one SQL store share their counters exactly.
const config = { ...RateLimit.defaultRateLimitConfig, perApiKeyPerMinute: 10 }
const TwoLimiters = Layer.effect(
  TwoInstances,
  Effect.gen(function* () {
    const a = yield* Effect.provide(
      RateLimit.RateLimiter,
      RateLimit.RateLimiter.layer(config).pipe(Layer.provide(SqlRateLimitStore.layer))
    )
    const b = yield* Effect.provide(
      RateLimit.RateLimiter,
      RateLimit.RateLimiter.layer(config).pipe(Layer.provide(SqlRateLimitStore.layer))
    )
    return { a, b }
  })
).pipe(Layer.provide(TestDatabase.layerPglite()))

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

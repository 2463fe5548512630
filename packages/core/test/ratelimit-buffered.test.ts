/**
 * BufferedRateLimitStore under the TestClock, over an in-memory stand-in of the shared counters
 * that counts its calls: refusals never reach the shared counters, admissions reach them within
 * one flush interval, and several instances exceed a limit only by what the staleness bound
 * (docs/decisions.md) allows.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Option, Scope, TestClock } from "effect"
import { BufferedRateLimitStore } from "../src/ratelimit/BufferedRateLimitStore.js"
import type { LimitRule } from "../src/ratelimit/FixedWindow.js"
import { RateLimitStore } from "../src/ratelimit/RateLimitStore.js"
import { SharedRateLimitCounters } from "../src/ratelimit/SharedRateLimitCounters.js"
import { StoreError } from "../src/StoreError.js"

/** Stands for a service of the request that scheduled a flush, as @effect/sql's open transaction is. */
class RequestTransaction extends Context.Tag("test/RequestTransaction")<RequestTransaction, string>() {}

const FLUSH_MS = 250
const MINUTE = 60_000
const T0 = Date.UTC(2026, 10, 2, 9, 0, 10)
const keyRule: LimitRule = { key: "key:k1", name: "api_key", limit: 10, windowMs: MINUTE }
const ipRule: LimitRule = { key: "ip:203.0.113.1:GET /x", name: "ip_method", limit: 100, windowMs: MINUTE }

/** The shared counters in a Map, with how often each side was called; `failAdds` fails the next adds. */
const sharedCounters = () => {
  const counts = new Map<string, number>()
  const calls = { read: 0, add: 0, failAdds: 0 }
  /** The request transaction (if any) each add ran in. */
  const addedIn: Array<string | null> = []
  const id = (key: string, start: number) => `${start} ${key}`
  const layer = Layer.succeed(SharedRateLimitCounters, {
    read: (windows) =>
      Effect.sync(() => {
        calls.read++
        return windows.map((w) => counts.get(id(w.key, w.windowStartMs)) ?? 0)
      }),
    add: (increments) =>
      Effect.flatMap(Effect.serviceOption(RequestTransaction), (transaction) => {
        addedIn.push(Option.getOrNull(transaction))
        calls.add++
        if (calls.failAdds > 0) {
          calls.failAdds--
          return Effect.fail(new StoreError({ message: "database unavailable" }))
        }
        return Effect.succeed(
          increments.map((i) => {
            const total = (counts.get(id(i.key, i.windowStartMs)) ?? 0) + i.count
            counts.set(id(i.key, i.windowStartMs), total)
            return total
          })
        )
      })
  })
  return { counts, calls, layer, id, addedIn }
}

/** A store instance (one host) in its own scope, so a test can close it. */
const instance = (shared: ReturnType<typeof sharedCounters>) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(
      BufferedRateLimitStore.layer({ flushEveryMs: FLUSH_MS }).pipe(Layer.provide(shared.layer)),
      scope
    )
    const store = context.unsafeMap.get(RateLimitStore.key) as RateLimitStore["Type"]
    const admitted = (n: number, rules: ReadonlyArray<LimitRule> = [keyRule]) =>
      Effect.gen(function* () {
        let allowed = 0
        for (let i = 0; i < n; i++) {
          const states = yield* store.hit(rules, yield* TestClock.currentTimeMillis)
          if (states.every((s) => s.count <= s.rule.limit)) allowed++
        }
        return allowed
      })
    return { store, admitted, close: Scope.close(scope, Exit.void) }
  })

describe("BufferedRateLimitStore", () => {
  it.effect("one instance is exact, and refusals never reach the shared counters", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const shared = sharedCounters()
      const host = yield* instance(shared)
      expect(yield* host.admitted(25)).toBe(10)
      // One read when the window was first seen; nothing added before the flush interval.
      expect(shared.calls).toMatchObject({ read: 1, add: 0 })
      yield* TestClock.adjust(FLUSH_MS)
      expect(shared.counts.get(shared.id(keyRule.key, T0 - 10_000))).toBe(10)
      const calls = { ...shared.calls }
      expect(yield* host.admitted(1000)).toBe(0)
      yield* TestClock.adjust(FLUSH_MS * 4)
      // A thousand refusals later: no read and no add.
      expect(shared.calls).toEqual(calls)
      yield* host.close
    })
  )

  it.effect("a flush runs in the store's own context, never in the request's that scheduled it", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const shared = sharedCounters()
      const host = yield* instance(shared)
      // The first admission schedules the flush from inside a request's (stand-in) transaction.
      expect(yield* host.admitted(3).pipe(Effect.provideService(RequestTransaction, "request-1"))).toBe(3)
      yield* TestClock.adjust(FLUSH_MS)
      expect(shared.addedIn).toEqual([null])
      expect(shared.counts.get(shared.id(keyRule.key, T0 - 10_000))).toBe(3)
      yield* host.close
    })
  )

  it.effect("a request refused by one limit charges none of the others", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const host = yield* instance(sharedCounters())
      expect(yield* host.admitted(12, [ipRule, keyRule])).toBe(10)
      const states = yield* host.store.hit([ipRule], yield* TestClock.currentTimeMillis)
      expect(states[0]?.count).toBe(11)
      yield* host.close
    })
  )

  it.effect("a new window starts from zero; the last one's admissions are still shared", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0 + 49_900)
      const shared = sharedCounters()
      const host = yield* instance(shared)
      expect(yield* host.admitted(4)).toBe(4)
      yield* TestClock.setTime(T0 + 50_000)
      expect(yield* host.admitted(12)).toBe(10)
      yield* TestClock.adjust(FLUSH_MS)
      expect(shared.counts.get(shared.id(keyRule.key, T0 - 10_000))).toBe(4)
      expect(shared.counts.get(shared.id(keyRule.key, T0 + 50_000))).toBe(10)
      yield* host.close
    })
  )

  it.effect("a failed flush keeps its counts for the next; closing the store flushes what is left", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const shared = sharedCounters()
      const host = yield* instance(shared)
      shared.calls.failAdds = 1
      expect(yield* host.admitted(3)).toBe(3)
      yield* TestClock.adjust(FLUSH_MS)
      expect(shared.counts.size).toBe(0)
      expect(yield* host.admitted(2)).toBe(2)
      yield* TestClock.adjust(FLUSH_MS)
      expect(shared.counts.get(shared.id(keyRule.key, T0 - 10_000))).toBe(5)
      expect(yield* host.admitted(1)).toBe(1)
      yield* host.close
      expect(shared.counts.get(shared.id(keyRule.key, T0 - 10_000))).toBe(6)
    })
  )

  it.effect(
    "two instances: a late one reads the shared count; stale ones over-admit at most one interval's worth",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const shared = sharedCounters()
        const a = yield* instance(shared)
        expect(yield* a.admitted(6)).toBe(6)
        yield* TestClock.adjust(FLUSH_MS)
        // B sees the window first after A's flush: it admits only what is left.
        const b = yield* instance(shared)
        expect(yield* b.admitted(10)).toBe(4)
        expect(yield* a.admitted(10)).toBe(4)
        // Within one flush interval both admitted the same 4: the documented error, (N − 1) × what
        // one instance admits per interval, here 4 over the limit.
        yield* TestClock.adjust(FLUSH_MS)
        expect(shared.counts.get(shared.id(keyRule.key, T0 - 10_000))).toBe(14)
        // One interval later both know the total and refuse.
        expect(yield* a.admitted(5)).toBe(0)
        expect(yield* b.admitted(5)).toBe(0)
        yield* a.close
        yield* b.close
      })
  )
})

/**
 * Rate-limit counters in one process's memory. Correct for a single instance; several instances
 * share counters only through the SQL store.
 */
import { RateLimit } from "@frank/core"
import { Effect, Layer } from "effect"
import { RateLimitStore } from "@frank/core/stores"

/** Sweep expired windows every this many hits, so idle keys do not accumulate forever. */
const SWEEP_EVERY_HITS = 1_000

/** `RateLimitStore` in memory. */
export const layer: Layer.Layer<RateLimitStore> = Layer.sync(RateLimitStore, () => {
  const counters = new Map<string, { windowStartMs: number; windowMs: number; count: number }>()
  let hits = 0
  return {
    hit: (rules, now) =>
      Effect.sync(() => {
        if (++hits % SWEEP_EVERY_HITS === 0)
          for (const [k, c] of counters) if (c.windowStartMs + c.windowMs <= now) counters.delete(k)
        const states: RateLimit.LimitState[] = rules.map((rule) => {
          const start = RateLimit.windowStart(now, rule.windowMs)
          const current = counters.get(rule.key)
          const count = current !== undefined && current.windowStartMs === start ? current.count : 0
          return { rule, count: count + 1, windowStartMs: start }
        })
        // All or nothing: only when every rule allows is the request counted.
        if (states.every((s) => s.count <= s.rule.limit))
          for (const s of states)
            counters.set(s.rule.key, { windowStartMs: s.windowStartMs, windowMs: s.rule.windowMs, count: s.count })
        return states
      })
  }
})

/**
 * Rate-limit counters on SQL, shared exactly by every host instance on the database.
 *
 * One statement counts a request against all its limits: each counter is incremented only while
 * it is below its limit (the conditional upsert re-checks the latest row version under its row
 * lock, so concurrent requests can never push a counter past its limit). When any counter refused,
 * the increments the same request made on the others are taken back, so a request refused by one
 * limit does not consume the budget of the rest. Counters are touched in key order, so requests
 * sharing counters cannot deadlock. The common path is one round trip.
 */
import { SqlClient } from "@effect/sql"
import { type LimitRule, type LimitState, RateLimitStore, StoreError, windowStart } from "@frank/core"
import { Effect, Layer } from "effect"

/** Delete finished windows once every this many hits of one instance. */
const SWEEP_EVERY_HITS = 500

export const SqlRateLimitStore = Layer.effect(
  RateLimitStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    let hits = 0
    return {
      hit: (rules: ReadonlyArray<LimitRule>, now: number) =>
        Effect.gen(function* () {
          if (rules.length === 0) return []
          const sorted = [...rules].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
          const starts = sorted.map((r) => windowStart(now, r.windowMs))
          const counted = yield* sql<{ key: string; count: number }>`
            INSERT INTO rate_limit_counters (key, window_start, window_end, count, limit_count)
            SELECT k, s, e, 1, l FROM unnest(
              ${sorted.map((r) => r.key)}::text[], ${starts}::bigint[],
              ${sorted.map((r, i) => starts[i]! + r.windowMs)}::bigint[], ${sorted.map((r) => r.limit)}::int[]
            ) AS t(k, s, e, l)
            ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
              WHERE rate_limit_counters.count < EXCLUDED.limit_count
            RETURNING key, count`
          const counts = new Map(counted.map((r) => [r.key, r.count]))
          const allowed = counts.size === sorted.length
          if (!allowed && counts.size > 0) {
            const taken = sorted.flatMap((r, i) => (counts.has(r.key) ? [{ key: r.key, start: starts[i]! }] : []))
            yield* sql`UPDATE rate_limit_counters AS c SET count = c.count - 1
              FROM unnest(${taken.map((t) => t.key)}::text[], ${taken.map((t) => t.start)}::bigint[]) AS t(k, s)
              WHERE c.key = t.k AND c.window_start = t.s`
          }
          if (++hits % SWEEP_EVERY_HITS === 0) yield* sql`DELETE FROM rate_limit_counters WHERE window_end <= ${now}`
          // A refused counter reports limit + 1; the others their count as if this request had been
          // counted, which is what the caller's verdict compares against the limit.
          const states: LimitState[] = sorted.map((rule, i) => ({
            rule,
            count: counts.get(rule.key) ?? rule.limit + 1,
            windowStartMs: starts[i]!
          }))
          return rules.map((r) => states.find((s) => s.rule.key === r.key)!)
        }).pipe(Effect.mapError((cause) => new StoreError({ message: "rate limit store: hit failed", cause })))
    }
  })
)

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
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlError from "@effect/sql/SqlError"
import { Errors, RateLimit } from "@frank/core"
import { Effect, Layer } from "effect"
import { RateLimitStore } from "@frank/core/stores"

/** Delete finished windows once every this many hits of one instance. */
const SWEEP_EVERY_HITS = 500

export const layer: Layer.Layer<RateLimitStore, never, SqlClient.SqlClient> = Layer.effect(
  RateLimitStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    let hits = 0
    return {
      // On every API request: plain combinators, no generator.
      hit: (rules: ReadonlyArray<RateLimit.LimitRule>, now: number) => {
        if (rules.length === 0) return Effect.succeed([])
        const sorted = [...rules].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
        const starts = sorted.map((r) => RateLimit.windowStart(now, r.windowMs))
        return sql<{ key: string; count: number }>`
          INSERT INTO rate_limit_counters (key, window_start, window_end, count, limit_count)
          SELECT k, s, e, 1, l FROM unnest(
            ${sorted.map((r) => r.key)}::text[], ${starts}::bigint[],
            ${sorted.map((r, i) => starts[i]! + r.windowMs)}::bigint[], ${sorted.map((r) => r.limit)}::int[]
          ) AS t(k, s, e, l)
          ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
            WHERE rate_limit_counters.count < EXCLUDED.limit_count
          RETURNING key, count`.pipe(
          Effect.flatMap((counted) => {
            const counts = new Map(counted.map((r) => [r.key, r.count]))
            // A refused counter reports limit + 1; the others their count as if this request had
            // been counted, which is what the caller's verdict compares against the limit.
            const states = new Map<string, RateLimit.LimitState>(
              sorted.map((rule, i) => [
                rule.key,
                { rule, count: counts.get(rule.key) ?? rule.limit + 1, windowStartMs: starts[i]! }
              ])
            )
            const result: ReadonlyArray<RateLimit.LimitState> = rules.map((r) => states.get(r.key)!)
            const allowed = counts.size === sorted.length
            const taken =
              !allowed && counts.size > 0
                ? sorted.flatMap((r, i) => (counts.has(r.key) ? [{ key: r.key, start: starts[i]! }] : []))
                : []
            // Typed by name: left to inference, the composite build (against core's .d.ts) infers the
            // union's requirements as unknown where the source typecheck does not.
            const undo: Effect.Effect<unknown, SqlError.SqlError> | undefined =
              taken.length > 0
                ? sql`UPDATE rate_limit_counters AS c SET count = c.count - 1
                    FROM unnest(${taken.map((t) => t.key)}::text[], ${taken.map((t) => t.start)}::bigint[]) AS t(k, s)
                    WHERE c.key = t.k AND c.window_start = t.s`
                : undefined
            const sweep: Effect.Effect<unknown, SqlError.SqlError> | undefined =
              ++hits % SWEEP_EVERY_HITS === 0
                ? sql`DELETE FROM rate_limit_counters WHERE window_end <= ${now}`
                : undefined
            if (undo === undefined && sweep === undefined) return Effect.succeed(result)
            return Effect.as(Effect.zipRight(undo ?? Effect.void, sweep ?? Effect.void), result)
          }),
          Effect.mapError(Errors.storeErrorFor("rate limit store")("hit"))
        )
      }
    }
  })
)

/**
 * Rate-limit counters on SQL, shared exactly by every host instance on the database. One
 * statement increments all of a request's counters; if any goes over its limit the transaction
 * rolls back, so a refused request is charged to no counter. Keys are upserted in sorted order,
 * so two requests touching the same counters cannot deadlock.
 */
import { SqlClient } from "@effect/sql"
import { type LimitRule, type LimitState, RateLimitStore, StoreError, windowStart } from "@frank/core"
import { Effect, Either, Layer } from "effect"

/** Delete finished windows once every this many hits of one instance. */
const SWEEP_EVERY_HITS = 500

class Refused {
  constructor(readonly states: ReadonlyArray<LimitState>) {}
}

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
          const outcome = yield* sql
            .withTransaction(
              Effect.gen(function* () {
                const rows = yield* sql<{ key: string; count: number }>`
                  INSERT INTO rate_limit_counters (key, window_start, window_end, count)
                  SELECT k, s, e, 1 FROM unnest(${sorted.map((r) => r.key)}::text[], ${starts}::bigint[], ${sorted.map((r, i) => starts[i]! + r.windowMs)}::bigint[]) AS t(k, s, e)
                  ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
                  RETURNING key, count`
                const counts = new Map(rows.map((r) => [r.key, r.count]))
                const states: LimitState[] = sorted.map((rule, i) => ({ rule, count: counts.get(rule.key) ?? 1, windowStartMs: starts[i]! }))
                // Failing the transaction rolls every increment back.
                if (states.some((s) => s.count > s.rule.limit)) return yield* Effect.fail(new Refused(states))
                return states
              })
            )
            .pipe(
              Effect.map(Either.right),
              Effect.catchIf(
                (e): e is Refused => e instanceof Refused,
                (e) => Effect.succeed(Either.left(e.states))
              )
            )
          if (++hits % SWEEP_EVERY_HITS === 0) yield* sql`DELETE FROM rate_limit_counters WHERE window_end <= ${now}`
          const states = Either.isRight(outcome) ? outcome.right : outcome.left
          // Answer in the caller's rule order.
          return rules.map((r) => states.find((s) => s.rule.key === r.key)!)
        }).pipe(Effect.mapError((cause) => new StoreError({ message: "rate limit store: hit failed", cause })))
    }
  })
)

/**
 * The shared rate-limit counters of `BufferedRateLimitStore` on SQL: the table of
 * `SqlRateLimitStore`, read and added to in batches. One statement adds a flush's increments;
 * rows are touched in key order, so instances flushing at once cannot deadlock.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Errors, RateLimit } from "@frank/core"
import { Effect, Layer } from "effect"

/** Delete finished windows once every this many flushes of one instance. */
const SWEEP_EVERY_FLUSHES = 240

const idOf = (key: string, start: number | string) => `${start} ${key}`

/** Shared counters on the `rate_limit_counters` table, for `BufferedRateLimitStore`. */
export const layer: Layer.Layer<RateLimit.SharedRateLimitCounters, never, SqlClient.SqlClient> = Layer.effect(
  RateLimit.SharedRateLimitCounters,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const failed = Errors.storeErrorFor("rate limit counters")
    let flushes = 0
    const countsOf = (rows: ReadonlyArray<{ key: string; windowStart: number | string; count: number }>) =>
      new Map(rows.map((r) => [idOf(r.key, Number(r.windowStart)), Number(r.count)]))
    return {
      read: (windows: ReadonlyArray<RateLimit.CounterWindow>) =>
        sql<{ key: string; windowStart: number | string; count: number }>`
          SELECT c.key, c.window_start, c.count FROM rate_limit_counters AS c
          JOIN unnest(${windows.map((w) => w.key)}::text[], ${windows.map((w) => w.windowStartMs)}::bigint[])
            AS t(k, s) ON c.key = t.k AND c.window_start = t.s`.pipe(
          Effect.map((rows) => {
            const counts = countsOf(rows)
            return windows.map((w) => counts.get(idOf(w.key, w.windowStartMs)) ?? 0)
          }),
          Effect.mapError(failed("read"))
        ),
      add: (increments: ReadonlyArray<RateLimit.CounterIncrement>, now: number) => {
        const sorted = [...increments].sort((a, b) =>
          a.key < b.key ? -1 : a.key > b.key ? 1 : a.windowStartMs - b.windowStartMs
        )
        const added = sql<{ key: string; windowStart: number | string; count: number }>`
          INSERT INTO rate_limit_counters (key, window_start, window_end, count, limit_count)
          SELECT k, s, e, c, l FROM unnest(
            ${sorted.map((i) => i.key)}::text[], ${sorted.map((i) => i.windowStartMs)}::bigint[],
            ${sorted.map((i) => i.windowStartMs + i.windowMs)}::bigint[], ${sorted.map((i) => i.count)}::int[],
            ${sorted.map((i) => i.limit)}::int[]
          ) AS t(k, s, e, c, l)
          ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + EXCLUDED.count
          RETURNING key, window_start, count`
        const sweep =
          ++flushes % SWEEP_EVERY_FLUSHES === 0
            ? sql`DELETE FROM rate_limit_counters WHERE window_end <= ${now}`
            : Effect.succeed([])
        return Effect.zipLeft(added, sweep).pipe(
          Effect.map((rows) => {
            const counts = countsOf(rows)
            return increments.map((i) => counts.get(idOf(i.key, i.windowStartMs)) ?? 0)
          }),
          Effect.mapError(failed("add"))
        )
      }
    }
  })
)

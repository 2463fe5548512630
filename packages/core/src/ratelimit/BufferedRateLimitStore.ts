/**
 * A rate-limit store that answers from memory and shares its counts in batches. A window's count
 * is read from the shared counters once per instance (its first request there); after that, every
 * request of the window — above all every refusal — is decided in memory, and the requests this
 * instance admitted are added to the shared counters every `flushEveryMs`, whose answer brings
 * in what the other instances admitted. The error this allows is in docs/decisions.md: exact on
 * one instance; with several, each learns of the others' admissions up to one flush late.
 */
import { Clock, Duration, Effect, Layer } from "effect"
import type { StoreError } from "../StoreError.js"
import { type LimitRule, type LimitState, windowStart } from "./FixedWindow.js"
import { RateLimitStore, type RateLimitStoreShape } from "./RateLimitStore.js"
import { type CounterIncrement, SharedRateLimitCounters } from "./SharedRateLimitCounters.js"

export interface BufferedRateLimitOptions {
  /** How often admitted requests are added to the shared counters (the staleness bound). */
  readonly flushEveryMs: number
}

export const defaultBufferedRateLimitOptions: BufferedRateLimitOptions = { flushEveryMs: 250 }

/** One counter's window as this instance knows it. */
interface Entry {
  readonly rule: LimitRule
  readonly windowStartMs: number
  /** The shared count when last read or flushed (every instance's admissions). */
  shared: number
  /** Admitted here since then (including a batch being flushed). */
  pending: number
}

const entryId = (key: string, start: number) => `${start} ${key}`

/** Counts one request against every rule in memory: all or nothing, as `RateLimitStore` says. */
const admit = (entries: ReadonlyArray<Entry>): ReadonlyArray<LimitState> => {
  const states = entries.map((e) => ({ rule: e.rule, count: e.shared + e.pending + 1, windowStartMs: e.windowStartMs }))
  if (states.every((s) => s.count <= s.rule.limit)) for (const e of entries) e.pending++
  return states
}

const make = (options: BufferedRateLimitOptions) =>
  Effect.gen(function* () {
    const shared = yield* SharedRateLimitCounters
    const entries = new Map<string, Entry>()

    /** Reports the admissions not yet shared, takes in the totals, forgets ended windows. */
    const flush = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const batch = [...entries.values()].filter((e) => e.pending > 0)
      const sent = batch.map((e) => e.pending)
      const increments: ReadonlyArray<CounterIncrement> = batch.map((e, i) => ({
        key: e.rule.key,
        windowStartMs: e.windowStartMs,
        windowMs: e.rule.windowMs,
        limit: e.rule.limit,
        count: sent[i]!
      }))
      const added = batch.length === 0 ? Effect.succeed<ReadonlyArray<number>>([]) : shared.add(increments, now)
      return Effect.map(added, (totals) => {
        batch.forEach((e, i) => {
          e.shared = totals[i]!
          e.pending -= sent[i]!
        })
        for (const [id, e] of entries)
          if (e.pending === 0 && e.windowStartMs + e.rule.windowMs <= now) entries.delete(id)
      })
    })
    // A failed flush keeps its counts for the next one; the requests meanwhile are still decided.
    const flushLogged = Effect.catchAll(flush, (e: StoreError) =>
      Effect.logWarning("rate-limit counters not shared; retrying at the next flush", e)
    )
    // A flush is scheduled only while admissions wait to be shared: an idle store has no timer
    // (nor does a test that moves the TestClock by years). It runs in the store's own context,
    // not the request's that scheduled it: inheriting a request's SQL transaction, it would write
    // the counters on that connection, locks held to the request's commit or lost in its rollback.
    const scope = yield* Effect.scope
    const own = yield* Effect.context<never>()
    let scheduled = false
    const flushLater: Effect.Effect<void> = Effect.suspend(() => {
      scheduled = true
      return Effect.asVoid(
        Effect.forkIn(
          Effect.mapInputContext(
            Effect.zipRight(
              Effect.sleep(Duration.millis(options.flushEveryMs)),
              Effect.suspend(() => {
                scheduled = false
                return Effect.zipRight(
                  flushLogged,
                  Effect.suspend(() => ([...entries.values()].some((e) => e.pending > 0) ? flushLater : Effect.void))
                )
              })
            ),
            () => own
          ),
          scope
        )
      )
    })
    yield* Effect.addFinalizer(() => flushLogged)
    const counted = (states: ReadonlyArray<LimitState>) =>
      scheduled || !states.every((s) => s.count <= s.rule.limit)
        ? Effect.succeed(states)
        : Effect.as(flushLater, states)

    const entriesFor = (rules: ReadonlyArray<LimitRule>, now: number) =>
      rules.map((rule) => {
        const start = windowStart(now, rule.windowMs)
        return { rule, start, entry: entries.get(entryId(rule.key, start)) }
      })

    const store: RateLimitStoreShape = {
      // On every API request: a memory lookup, and a read only for a window first seen here.
      hit: (rules, now) => {
        const found = entriesFor(rules, now)
        const unknown = found.filter((f) => f.entry === undefined)
        if (unknown.length === 0) return counted(admit(found.map((f) => f.entry!)))
        return Effect.flatMap(
          shared.read(unknown.map((f) => ({ key: f.rule.key, windowStartMs: f.start }))),
          (counts) => {
            // Concurrent first requests each read; the first answer stays, so no admission is lost.
            unknown.forEach((f, i) => {
              const id = entryId(f.rule.key, f.start)
              if (!entries.has(id))
                entries.set(id, { rule: f.rule, windowStartMs: f.start, shared: counts[i]!, pending: 0 })
            })
            return counted(admit(found.map((f) => entries.get(entryId(f.rule.key, f.start))!)))
          }
        )
      }
    }
    return store
  })

/** The rate-limit store for several instances: counts in memory, shared in batches. */
export const BufferedRateLimitStore = {
  /** The store over `SharedRateLimitCounters`, flushing in the background until its scope closes. */
  layer: (options: BufferedRateLimitOptions = defaultBufferedRateLimitOptions) =>
    Layer.scoped(RateLimitStore, make(options))
}

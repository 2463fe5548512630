/**
 * Counters several host instances share (on SQL), read and added to in batches by
 * `BufferedRateLimitStore`: a request never waits on them once its counters are known.
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../StoreError.js"

/** One fixed window of one counter. */
export interface CounterWindow {
  readonly key: string
  readonly windowStartMs: number
}

/** Requests one instance admitted into a window since it last reported. */
export interface CounterIncrement extends CounterWindow {
  readonly windowMs: number
  readonly limit: number
  readonly count: number
}

/** The shared counters' two operations: read windows and add increments. */
export interface SharedRateLimitCountersShape {
  /** The count of each window (0 when none), in the order asked. */
  readonly read: (windows: ReadonlyArray<CounterWindow>) => Effect.Effect<ReadonlyArray<number>, StoreError>
  /** Adds each increment to its window and answers the totals of every instance, in order. */
  readonly add: (
    increments: ReadonlyArray<CounterIncrement>,
    now: number
  ) => Effect.Effect<ReadonlyArray<number>, StoreError>
}

/** The port to the counters every instance shares (a SQL table in production). */
export class SharedRateLimitCounters extends Context.Tag("@frank/core/SharedRateLimitCounters")<
  SharedRateLimitCounters,
  SharedRateLimitCountersShape
>() {}

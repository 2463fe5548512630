/**
 * Counter storage of the rate limiter. `hit` counts one request against every rule atomically:
 * when any rule refuses, none of them is charged, so a request denied by one limit does not eat
 * the budget of the others. SQL stores make several host instances share counters exactly.
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../StoreError.js"
import type { LimitRule, LimitState } from "./FixedWindow.js"

/** The rate-limit store's operation: count one hit against each rule's window and answer their states. */
export interface RateLimitStoreShape {
  readonly hit: (rules: ReadonlyArray<LimitRule>, now: number) => Effect.Effect<ReadonlyArray<LimitState>, StoreError>
}

/** Port: where rate-limit counters are kept. */
export class RateLimitStore extends Context.Tag("@frank/core/RateLimitStore")<RateLimitStore, RateLimitStoreShape>() {}

/**
 * An endpoint's delivery rate (`rateLimitPerSecond`): the pure rule the claim applies. Each
 * limited endpoint keeps a log of the grants of the last second (claim time, how many); a claim
 * may start as many attempts as the log leaves room for, so no window of one second (sliding, not
 * aligned to clock seconds) ever holds more than the limit. Deliveries past it are deferred to
 * when the log frees room, their attempts unchanged: waiting for the rate is not an attempt.
 * The SQL store applies the same rule in `webhook_take_rate` (migration 0026).
 */
import { SECOND_MS } from "../timeUnits.js"

/** The lowest and highest `rateLimitPerSecond` an endpoint may have (null: unlimited). */
export const MIN_RATE_PER_SECOND = 1
export const MAX_RATE_PER_SECOND = 10_000

/** The limit's window: a second, sliding. */
export const RATE_WINDOW_MS = SECOND_MS

/** One claim's grant: `count` attempts started at `at`. */
export interface RateGrant {
  readonly at: number
  readonly count: number
}

/** An endpoint's grants within the last window, oldest first. */
export type RateWindow = ReadonlyArray<RateGrant>

/** Whether `value` is a valid limit: null (unlimited) or an integer in 1..10,000. */
export const isValidRate = (value: number | null): boolean =>
  value === null || (Number.isInteger(value) && value >= MIN_RATE_PER_SECOND && value <= MAX_RATE_PER_SECOND)

/** What a claim at `now` may take of `wanted` attempts, the window after it, and when room frees next. */
export interface RateTake {
  readonly granted: number
  readonly window: RateWindow
  /** When the window next frees room: the oldest grant's end (only meaningful when some were refused). */
  readonly retryAt: number
}

/** The grants still inside the window at `now`: those made after `now - 1 s`. */
export const liveGrants = (window: RateWindow, now: number): RateWindow =>
  window.filter((g) => g.at > now - RATE_WINDOW_MS)

/** Takes up to `wanted` attempts at `now` under `perSecond`, recording the grant in the window. */
export const takeRate = (window: RateWindow, perSecond: number, wanted: number, now: number): RateTake => {
  const live = liveGrants(window, now)
  const used = live.reduce((n, g) => n + g.count, 0)
  const granted = Math.max(0, Math.min(wanted, perSecond - used))
  const last = live[live.length - 1]
  const next: RateWindow =
    granted === 0
      ? live
      : last !== undefined && last.at === now
        ? [...live.slice(0, -1), { at: now, count: last.count + granted }]
        : [...live, { at: now, count: granted }]
  const oldest = next[0]
  return { granted, window: next, retryAt: (oldest?.at ?? now) + RATE_WINDOW_MS }
}

/**
 * When the `k`-th deferred delivery (0-based) of one claim is due again: the first `perSecond` at
 * `retryAt`, the next ones a second later each, so a backlog spreads over the seconds it needs
 * instead of every waiting delivery coming due (and being deferred) again at once.
 */
export const deferredUntil = (retryAt: number, k: number, perSecond: number): number =>
  retryAt + Math.floor(k / perSecond) * RATE_WINDOW_MS

/**
 * An endpoint's delivery rate (`rateLimitPerSecond`): the pure rule the claim applies. Each
 * limited endpoint keeps a log of the grants of the last second (claim time, how many); a claim
 * may start as many attempts as the log leaves room for, so no window of one second (sliding, not
 * aligned to clock seconds) ever holds more than the limit. Deliveries past it are deferred to
 * when the log frees room, their attempts unchanged: waiting for the rate is not an attempt.
 * The SQL store applies the same rule in `webhook_take_rate` (migration 0029).
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

/**
 * An endpoint's rate state: its grants of the last second, and the spacing's next slot in
 * microseconds (null before the first grant). Slots are `1 s / perSecond` apart, so attempts go
 * out evenly rather than a second's worth at once: with bursts, request timing (a send leaves a
 * little after its claim) could put two bursts into one receiver's second.
 */
export interface RateState {
  readonly window: RateWindow
  readonly nextSlotUs: number | null
}

/** A new limited endpoint's state. */
export const emptyRateState: RateState = { window: [], nextSlotUs: null }

/** What a claim at `now` may take of `wanted` attempts, the state after it, and when room frees next. */
export interface RateTake {
  readonly granted: number
  readonly state: RateState
  /** When the next attempt may start (only meaningful when some were refused). */
  readonly retryAt: number
}

/** The grants still inside the window at `now`: those made after `now - 1 s`. */
export const liveGrants = (window: RateWindow, now: number): RateWindow =>
  window.filter((g) => g.at > now - RATE_WINDOW_MS)

/** Microseconds between two slots. */
export const slotUs = (perSecond: number): number => Math.ceil(1_000_000 / perSecond)

/**
 * Slots a claim may catch up on at once (the largest burst): a tenth of the rate, so a fast
 * endpoint is not held to one attempt per claim. Up to 10/s that is a single slot: a claim that
 * comes late then loses the time it was late (the rate falls a little short) rather than sending
 * two at once, which request timing could put beside the next second's first.
 */
export const burstSlots = (perSecond: number): number => Math.ceil(perSecond / 10)

/**
 * Takes up to `wanted` attempts at `now` under `perSecond`: as many slots as are due (at most
 * `burstSlots` back), and never more than the grants of the last second leave room for.
 */
export const takeRate = (state: RateState, perSecond: number, wanted: number, now: number): RateTake => {
  const live = liveGrants(state.window, now)
  const used = live.reduce((n, g) => n + g.count, 0)
  const step = slotUs(perSecond)
  const nowUs = now * 1_000
  const first = Math.max(state.nextSlotUs ?? Number.NEGATIVE_INFINITY, nowUs - (burstSlots(perSecond) - 1) * step)
  const slots = first > nowUs ? 0 : Math.floor((nowUs - first) / step) + 1
  const granted = Math.max(0, Math.min(wanted, slots, perSecond - used))
  const last = live[live.length - 1]
  const window: RateWindow =
    granted === 0
      ? live
      : last !== undefined && last.at === now
        ? [...live.slice(0, -1), { at: now, count: last.count + granted }]
        : [...live, { at: now, count: granted }]
  const nextSlotUs = granted === 0 ? state.nextSlotUs : first + granted * step
  const full = used + granted >= perSecond
  const windowFrees = full ? (window[0]?.at ?? now) + RATE_WINDOW_MS : now
  const slotFrees = nextSlotUs === null ? now : Math.ceil(nextSlotUs / 1_000)
  return { granted, state: { window, nextSlotUs }, retryAt: Math.max(windowFrees, slotFrees, now + 1) }
}

/**
 * When the `k`-th deferred delivery (0-based) of one claim is due again: one slot apart from
 * `retryAt`, so a backlog comes due at the rate instead of all at once (and being deferred again).
 */
export const deferredUntil = (retryAt: number, k: number, perSecond: number): number =>
  retryAt + Math.floor((k * 1_000) / perSecond)

/**
 * Fixed-window counting, aligned to the window (a minute window starts at :00). Pure: the store
 * keeps the counters, these functions say what a count means.
 */
export interface LimitRule {
  /** Counter identity, e.g. `key:<id>` or `ip:<addr>:POST /v1/webhooks/endpoints`. */
  readonly key: string
  /** Name of the policy for metrics and logs (`api_key`, `ip_method`, …). */
  readonly name: string
  readonly limit: number
  readonly windowMs: number
}

/** A counter's state: its rule, count and window start. */
export interface LimitState {
  readonly rule: LimitRule
  /** Requests counted in the current window, including this one when allowed. */
  readonly count: number
  readonly windowStartMs: number
}

/** The answer of a limit to one request: allowed or not, and the numbers its headers carry. */
export interface LimitVerdict {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Seconds until the current window resets (≥ 1). */
  readonly resetSeconds: number
  /** When the current window ends (epoch ms). */
  readonly resetAtMs: number
  readonly rule: LimitRule
}

/** The start of the fixed window holding a moment. */
export const windowStart = (now: number, windowMs: number): number => Math.floor(now / windowMs) * windowMs

export const verdict = (s: LimitState, now: number): LimitVerdict => ({
  allowed: s.count <= s.rule.limit,
  limit: s.rule.limit,
  remaining: Math.max(0, s.rule.limit - s.count),
  resetSeconds: Math.max(1, Math.ceil((s.windowStartMs + s.rule.windowMs - now) / 1000)),
  resetAtMs: s.windowStartMs + s.rule.windowMs,
  rule: s.rule
})

/**
 * The verdict a response reports: the first denial if any, else the policy closest to its limit
 * (fewest remaining, earliest reset on ties).
 */
export const tightest = (verdicts: ReadonlyArray<LimitVerdict>): LimitVerdict | undefined => {
  const denied = verdicts.find((v) => !v.allowed)
  if (denied !== undefined) return denied
  let best: LimitVerdict | undefined
  for (const v of verdicts)
    if (
      best === undefined ||
      v.remaining < best.remaining ||
      (v.remaining === best.remaining && v.resetSeconds < best.resetSeconds)
    )
      best = v
  return best
}

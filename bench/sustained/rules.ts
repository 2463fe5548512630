/**
 * The pure rules of bench/sustained: percentiles of the commit → delivery latencies, whether a
 * step held its rate, and the RATES list. Kept apart from the processes and sockets so a unit
 * test (test/bench-sustained-rules.test.ts) holds them.
 */

/** The p-th percentile (0..100) of `xs` by the nearest-rank rule; NaN when empty. */
export const percentile = (xs: ReadonlyArray<number>, p: number): number => {
  if (xs.length === 0) return Number.NaN
  const sorted = [...xs].sort((a, b) => a - b)
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!
}

/** What one step at a target rate did, as the rule below judges it. */
export interface StepOutcome {
  /** Events per second asked for. */
  readonly target: number
  /** Events whose emitting request was answered 2xx, per second of the emit window. */
  readonly achieved: number
  readonly emitted: number
  /** Of the emitted events, how many the receiver got before the bench stopped waiting. */
  readonly delivered: number
  /** Emitting requests that failed (non-2xx or a socket error). */
  readonly failed: number
  readonly p99Ms: number
  /** Events emitted but not yet delivered when the emit window closed. */
  readonly backlogAtEnd: number
}

/** The latency bound of a held step, and the share of the target rate the emitters must reach. */
export const HELD_P99_MS = 1000
export const HELD_RATE_SHARE = 0.95

/** Why a step was not held; empty when it was. */
export const notHeldBecause = (s: StepOutcome): ReadonlyArray<string> => {
  const why: Array<string> = []
  if (s.achieved < HELD_RATE_SHARE * s.target) why.push(`emitted ${s.achieved.toFixed(0)}/s < 95 % of ${s.target}/s`)
  if (s.failed > 0) why.push(`${s.failed} emits failed`)
  if (s.delivered < s.emitted) why.push(`${s.emitted - s.delivered} of ${s.emitted} not delivered`)
  if (!(s.p99Ms <= HELD_P99_MS)) why.push(`p99 ${s.p99Ms.toFixed(0)} ms > ${HELD_P99_MS} ms`)
  // A delivery side keeping up leaves at most the last p99's worth of events outstanding: more
  // means the queue grew through the step (and the next seconds would only add to it).
  if (s.backlogAtEnd > (s.target * HELD_P99_MS) / 1000)
    why.push(`backlog ${s.backlogAtEnd} at the end > ${s.target} (1 s of the target)`)
  return why
}

/** The highest target of the leading run of held steps (steps in rising order), or 0. */
export const highestHeld = (steps: ReadonlyArray<StepOutcome>): number => {
  let best = 0
  for (const s of steps) {
    if (notHeldBecause(s).length > 0) break
    best = s.target
  }
  return best
}

/** RATES: comma-separated positive integers in rising order. */
export const parseRates = (text: string): ReadonlyArray<number> => {
  const rates = text.split(",").map((x) => Number(x.trim()))
  if (rates.length === 0 || rates.some((r) => !Number.isSafeInteger(r) || r <= 0))
    throw new Error(`RATES must be comma-separated positive integers, got ${JSON.stringify(text)}`)
  if (rates.some((r, i) => i > 0 && r <= rates[i - 1]!)) throw new Error(`RATES must rise, got ${text}`)
  return rates
}

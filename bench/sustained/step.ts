/**
 * One step of bench/sustained: events emitted open-loop at a target rate for a number of seconds
 * through a host's write paths while its own worker delivers, then the wait for the last
 * deliveries. Open-loop: emit i is due at t0 + i / rate whatever the host answers, so a host that
 * answers slowly falls behind the schedule (the achieved rate) instead of slowing the schedule.
 */
import type { PhaseUsage } from "../support/pgSampler.js"
import type { BenchHost, EmitKind } from "./host.js"
import type { Receiver } from "./receiver.js"
import { percentile, type StepOutcome } from "./rules.js"

export interface StepSettings {
  readonly seconds: number
  readonly kinds: ReadonlyArray<EmitKind>
  /** Emitting requests in flight at most: past it the schedule waits (and the achieved rate falls). */
  readonly maxInFlight: number
  /** How long after the emit window the bench waits for the last deliveries. */
  readonly graceMs: number
}

export interface StepResult extends StepOutcome {
  readonly p50Ms: number
  /** Events delivered per second, from the first emit to the last delivery. */
  readonly deliveredRate: number
  /** CPU µs per delivered event: the host process and its PostgreSQL backends. */
  readonly hostUs: number
  readonly pgUs: number
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Emits `total` events at `rate`/s (Infinity: as fast as maxInFlight allows); answers each event's commit time by id. */
export const emitAt = async (host: BenchHost, rate: number, total: number, s: StepSettings) => {
  const committed = new Map<string, number>()
  let failed = 0
  let inFlight = 0
  let firstError: unknown
  const t0 = performance.now()
  const pending: Array<Promise<void>> = []
  for (let i = 0; i < total; i++) {
    while (inFlight >= s.maxInFlight || performance.now() < t0 + (i * 1000) / rate) await sleep(1)
    inFlight++
    const partner = host.partners[i % host.partners.length]!
    const kind = s.kinds[i % s.kinds.length]!
    pending.push(
      host.emit(partner, kind).then(
        (id) => {
          committed.set(id, performance.now())
          inFlight--
        },
        (e) => {
          firstError ??= e
          failed++
          inFlight--
        }
      )
    )
  }
  await Promise.all(pending)
  if (failed > 0) console.error(`  ${failed} emits failed; the first: ${String(firstError)}`)
  return { committed, failed, t0, seconds: (performance.now() - t0) / 1000 }
}

const undelivered = (committed: Map<string, number>, receiver: Receiver) => {
  let n = 0
  for (const id of committed.keys()) if (!receiver.arrivals.has(id)) n++
  return n
}

/** Waits until every committed event arrived or `graceMs` passed; answers when the last arrived. */
export const awaitArrivals = async (committed: Map<string, number>, receiver: Receiver, graceMs: number) => {
  const deadline = performance.now() + graceMs
  // Only the ids still missing are looked at again: a step at thousands per second has 100,000.
  let missing = [...committed.keys()].filter((id) => !receiver.arrivals.has(id))
  while (missing.length > 0 && performance.now() < deadline) {
    await sleep(20)
    missing = missing.filter((id) => !receiver.arrivals.has(id))
  }
  let last = 0
  for (const id of committed.keys()) last = Math.max(last, receiver.arrivals.get(id) ?? 0)
  return last
}

/** Runs one step; `during` measures CPU over it (pgSampler's `during` with the host's pid). */
export const runStep = async (
  host: BenchHost,
  receiver: Receiver,
  target: number,
  s: StepSettings,
  during: <A>(phase: () => Promise<A>) => Promise<{ result: A; usage: PhaseUsage }>
): Promise<StepResult> => {
  const { result, usage } = await during(async () => {
    const emitted = await emitAt(host, target, Math.round(target * s.seconds), s)
    const backlogAtEnd = undelivered(emitted.committed, receiver)
    const lastArrival = await awaitArrivals(emitted.committed, receiver, s.graceMs)
    return { ...emitted, backlogAtEnd, lastArrival }
  })
  const { committed, failed, t0, seconds, backlogAtEnd, lastArrival } = result
  // An arrival can precede the emitting request's answer by a hair: count it as 0.
  const latencies: Array<number> = []
  for (const [id, at] of committed) {
    const arrived = receiver.arrivals.get(id)
    if (arrived !== undefined) latencies.push(Math.max(0, arrived - at))
  }
  const delivered = latencies.length
  const perEvent = (cores: number) => (cores * usage.seconds * 1e6) / Math.max(1, delivered)
  return {
    target,
    achieved: committed.size / seconds,
    emitted: committed.size,
    delivered,
    failed,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    backlogAtEnd,
    deliveredRate: (delivered * 1000) / Math.max(1, lastArrival - t0),
    hostUs: perEvent(usage.processCores[0] ?? Number.NaN),
    pgUs: perEvent(usage.pgCores)
  }
}

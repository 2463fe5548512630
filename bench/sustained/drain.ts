/**
 * The drain-only rate of bench/sustained, in the same run as the steps. The host contract has no
 * switch for the worker, and a paused endpoint gets no deliveries of broadcast events (the
 * fan-out skips it) nor `webhook.test` (409), so the queue is built this way: the receiver
 * answers HOLD_MS late (under the 10 s attempt timeout), so the worker's in-flight slots stay
 * full and it delivers only a trickle while N events are emitted; then every endpoint is paused
 * (PATCH active:false marks the pending deliveries), the receiver answers at once again, the
 * held attempts finish, and the resume (PATCH active:true, which wakes the worker) starts the
 * timed drain of every event not yet delivered.
 *
 * The two phases also split the path's CPU: the emit is the write side (request, ledger movement,
 * event insert, fan-out, NOTIFY, and the trickle of held attempts), the drain the delivery side
 * (claim, attempt, outcome).
 */
import type { PhaseUsage } from "../support/pgSampler.js"
import type { BenchHost } from "./host.js"
import type { Receiver } from "./receiver.js"
import { awaitArrivals, emitAt, type StepSettings } from "./step.js"

const HOLD_MS = 5000

export interface DrainResult {
  /** Events emitted, and of them queued (not yet delivered) when the drain began. */
  readonly emitted: number
  readonly queued: number
  /** Deliveries of the queued events per second, from the resume to the last arrival. */
  readonly rate: number
  readonly delivered: number
  /** CPU µs per event of the write side (the emit) and of the delivery side (the drain). */
  readonly write: { readonly hostUs: number; readonly pgUs: number }
  readonly deliver: { readonly hostUs: number; readonly pgUs: number }
}

const perEvent = (usage: PhaseUsage, n: number) => ({
  hostUs: ((usage.processCores[0] ?? Number.NaN) * usage.seconds * 1e6) / Math.max(1, n),
  pgUs: (usage.pgCores * usage.seconds * 1e6) / Math.max(1, n)
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export const drainOnly = async (
  host: BenchHost,
  receiver: Receiver,
  events: number,
  s: StepSettings,
  during: <A>(phase: () => Promise<A>) => Promise<{ result: A; usage: PhaseUsage }>
): Promise<DrainResult> => {
  receiver.answerAfter(HOLD_MS)
  const written = await during(() => emitAt(host, Number.POSITIVE_INFINITY, events, s))
  await host.setActive(false)
  receiver.answerAfter(0)
  while (receiver.held() > 0) await sleep(50)
  // The held attempts' outcomes are written just after their answers.
  await sleep(500)
  const queue = new Map([...written.result.committed].filter(([id]) => !receiver.arrivals.has(id)))
  const drained = await during(async () => {
    const t0 = performance.now()
    await host.setActive(true)
    const last = await awaitArrivals(queue, receiver, Math.max(s.graceMs, 120_000))
    return { t0, last }
  })
  const delivered = [...queue.keys()].filter((id) => receiver.arrivals.has(id)).length
  return {
    emitted: written.result.committed.size,
    queued: queue.size,
    rate: (delivered * 1000) / Math.max(1, drained.result.last - drained.result.t0),
    delivered,
    write: perEvent(written.usage, written.result.committed.size),
    deliver: perEvent(drained.usage, delivered)
  }
}

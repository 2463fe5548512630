/**
 * Deadlines for work that runs outside a fiber (an undici request driven by callbacks), checked
 * on Effect's Clock by one sweeper fiber.
 *
 * Why not `Effect.timeout` per request: it races the request against a sleeping fiber, which
 * costs two extra fibers and a timer per attempt — measured at about twice the CPU of the POST
 * itself (bench/webhooks, docs/performance.md). Here an attempt costs one Set entry; the sweeper
 * wakes every `tickMs` while anything is registered and sleeps on a latch otherwise, so an idle
 * host has no timer running. A deadline fires at most `tickMs` after it is due.
 */
import { Cause, Duration, Effect, type Scope } from "effect"

export interface Deadlines {
  /**
   * Calls `onExpired` once, `timeoutMs` of elapsed time after now on the Clock, unless the answer (cancel) is
   * called first. `onExpired` runs on the sweeper fiber and must be synchronous; if it throws, the
   * error is logged and the sweeper carries on.
   */
  readonly add: (timeoutMs: number, onExpired: () => void) => () => void
}

interface Entry {
  readonly atMs: number
  readonly onExpired: () => void
}

const NANOS_PER_MS = BigInt(1_000_000)

export const makeDeadlines = (tickMs: number): Effect.Effect<Deadlines, never, Scope.Scope> =>
  Effect.gen(function* () {
    if (!(tickMs > 0)) return yield* Effect.dieMessage(`Deadlines: tickMs must be positive, got ${tickMs}`)
    const clock = yield* Effect.clock
    // Elapsed time, not the wall clock: the live Clock's nanoseconds are monotonic (hrtime), so a
    // wall-clock step (NTP, a resumed VM) neither postpones every pending timeout nor fires them
    // all at once; under TestClock they follow the test's time like the milliseconds do.
    const nowMs = () => Number(clock.unsafeCurrentTimeNanos() / NANOS_PER_MS)
    const pending = new Set<Entry>()
    // Open while something is registered; the sweeper closes it (synchronously, together with the
    // emptiness check) before waiting, so a registration cannot slip between check and wait.
    const busy = yield* Effect.makeLatch(false)
    const expire = Effect.suspend(() => {
      const now = nowMs()
      const thrown: Array<unknown> = []
      for (const entry of pending)
        if (entry.atMs <= now) {
          pending.delete(entry)
          // A throwing callback must not end the sweeper: every later deadline would never fire.
          try {
            entry.onExpired()
          } catch (error) {
            thrown.push(error)
          }
        }
      if (pending.size === 0) busy.unsafeClose()
      return thrown.length === 0
        ? Effect.void
        : Effect.logError("deadlines: an expiry callback threw", Cause.die(thrown[0]))
    })
    yield* Effect.forkScoped(
      Effect.forever(Effect.zipRight(busy.await, Effect.zipRight(Effect.sleep(Duration.millis(tickMs)), expire)))
    )
    return {
      add: (timeoutMs, onExpired) => {
        const entry: Entry = { atMs: nowMs() + timeoutMs, onExpired }
        pending.add(entry)
        if (pending.size === 1) busy.unsafeOpen()
        return () => {
          pending.delete(entry)
        }
      }
    }
  })

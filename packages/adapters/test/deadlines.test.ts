/**
 * The transport's attempt deadlines, on the TestClock: they fire once, after their time and at
 * most one tick late, never when cancelled, and the sweeper idles (no timer) when nothing is
 * registered.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Clock, Duration, Effect, TestClock } from "effect"
import { makeDeadlines } from "../src/webhooks/internal/Deadlines.js"

describe("Deadlines", () => {
  it.scoped("fires each deadline once, within one tick after it is due, and never a cancelled one", () =>
    Effect.gen(function* () {
      const deadlines = yield* makeDeadlines(100)
      const fired: Array<string> = []
      deadlines.add(250, () => fired.push("a"))
      const cancelB = deadlines.add(250, () => fired.push("b"))
      deadlines.add(1_000, () => fired.push("c"))
      cancelB()
      yield* TestClock.adjust(200)
      expect(fired).toEqual([])
      yield* TestClock.adjust(100) // 300 ms: a was due at 250, the tick at 300 sees it
      expect(fired).toEqual(["a"])
      yield* TestClock.adjust(1_000)
      expect(fired).toEqual(["a", "c"])
      yield* TestClock.adjust(5_000)
      expect(fired).toEqual(["a", "c"])
    })
  )

  it.scoped("sleeps on no timer while nothing is registered, and wakes for the next registration", () =>
    Effect.gen(function* () {
      const deadlines = yield* makeDeadlines(100)
      yield* TestClock.adjust(1_000)
      // Nothing registered: the sweeper waits on its latch, not on the clock.
      expect(Chunk.size(yield* TestClock.sleeps())).toBe(0)
      const fired: Array<number> = []
      deadlines.add(150, () => fired.push(1))
      yield* Effect.yieldNow()
      yield* TestClock.adjust(200)
      expect(fired).toEqual([1])
      yield* TestClock.adjust(200)
      expect(Chunk.size(yield* TestClock.sleeps())).toBe(0)
    })
  )

  it.scoped("keeps sweeping after a callback throws: later deadlines still fire", () =>
    Effect.gen(function* () {
      const deadlines = yield* makeDeadlines(100)
      const fired: Array<string> = []
      deadlines.add(100, () => {
        throw new Error("a broken callback")
      })
      deadlines.add(100, () => fired.push("same tick"))
      deadlines.add(500, () => fired.push("later"))
      yield* TestClock.adjust(200)
      expect(fired).toEqual(["same tick"])
      yield* TestClock.adjust(400)
      expect(fired).toEqual(["same tick", "later"])
    })
  )

  it.live("times on elapsed time: a wall clock stepped back a minute does not postpone a deadline", () =>
    Effect.gen(function* () {
      // The live Clock with its wall-clock milliseconds stepped back by `stepMs` (an NTP step).
      const live = Clock.make()
      let stepMs = 0
      const stepped: Clock.Clock = {
        [Clock.ClockTypeId]: Clock.ClockTypeId,
        unsafeCurrentTimeMillis: () => live.unsafeCurrentTimeMillis() - stepMs,
        currentTimeMillis: Effect.sync(() => live.unsafeCurrentTimeMillis() - stepMs),
        unsafeCurrentTimeNanos: () => live.unsafeCurrentTimeNanos(),
        currentTimeNanos: live.currentTimeNanos,
        sleep: (duration: Duration.Duration) => live.sleep(duration)
      }
      let fired = false
      yield* Effect.scoped(
        Effect.gen(function* () {
          const deadlines = yield* makeDeadlines(20)
          deadlines.add(100, () => {
            fired = true
          })
          stepMs = 60_000
          yield* Effect.sleep(Duration.millis(400))
        })
      ).pipe(Effect.withClock(stepped))
      expect(fired).toBe(true)
    })
  )

  it.scoped("refuses a tick that is not positive", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(makeDeadlines(0))
      expect(exit._tag).toBe("Failure")
    })
  )
})

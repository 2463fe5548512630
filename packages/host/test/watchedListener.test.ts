/**
 * The webhook listener's self-check, simulated: a channel that echoes what is sent while healthy
 * and goes silent when "the connection drops", driven by TestClock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Queue, Ref, Stream, TestClock } from "effect"
import { isProbe, ListenerDeaf, PROBE_PREFIX, runWatchedListener } from "../src/workers/watchedListener.js"

const EVERY_MS = 30_000
const TIMEOUT_MS = 5_000

/** A channel: what is sent comes back to the listener, unless it has gone deaf. */
const simulated = Effect.gen(function* () {
  const channel = yield* Queue.unbounded<string>()
  const deaf = yield* Ref.make(false)
  const received = yield* Ref.make<ReadonlyArray<string>>([])
  const probe = `${PROBE_PREFIX}me`
  const listener = yield* Effect.fork(
    runWatchedListener({
      notifications: Stream.fromQueue(channel),
      send: (payload) => Effect.flatMap(Ref.get(deaf), (d) => (d ? Effect.void : Queue.offer(channel, payload))),
      probe,
      onPayload: (payload) => Ref.update(received, (r) => [...r, payload]),
      probeEveryMs: EVERY_MS,
      probeTimeoutMs: TIMEOUT_MS
    })
  )
  return { channel, deaf, received, listener }
})

describe("watched listener", () => {
  it.effect("passes on every payload but probes, and keeps running while its probes come back", () =>
    Effect.gen(function* () {
      const { channel, received, listener } = yield* simulated
      yield* Queue.offerAll(channel, ["due", `${PROBE_PREFIX}another-instance`, "due:abc"])
      // Ten probe rounds, each answered.
      for (let i = 0; i < 10; i++) yield* TestClock.adjust(EVERY_MS)
      expect(yield* Ref.get(received)).toEqual(["due", "due:abc"])
      expect(yield* Fiber.poll(listener)).toEqual(expect.objectContaining({ _tag: "None" }))
      yield* Fiber.interrupt(listener)
    })
  )

  it.effect("fails with ListenerDeaf when a probe is not heard back in time", () =>
    Effect.gen(function* () {
      const { deaf, listener } = yield* simulated
      yield* TestClock.adjust(3 * EVERY_MS)
      yield* Ref.set(deaf, true)
      // The next probe goes out at the next interval and is given up after the timeout.
      yield* TestClock.adjust(EVERY_MS + TIMEOUT_MS - 1)
      expect((yield* Fiber.poll(listener))._tag).toBe("None")
      yield* TestClock.adjust(1)
      const exit = yield* Fiber.await(listener)
      expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error instanceof ListenerDeaf).toBe(true)
    })
  )

  it.effect("fails with ListenerDeaf when the notification stream ends", () =>
    Effect.gen(function* () {
      const { channel, listener } = yield* simulated
      yield* Queue.shutdown(channel)
      const exit = yield* Fiber.await(listener)
      expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error instanceof ListenerDeaf).toBe(true)
    })
  )

  it("tells probes from payloads by their prefix", () => {
    expect(isProbe(`${PROBE_PREFIX}x`)).toBe(true)
    expect(isProbe("due")).toBe(false)
    expect(isProbe("due:probe:x")).toBe(false)
  })
})

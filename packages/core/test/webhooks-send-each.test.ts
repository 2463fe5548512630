/**
 * sendEach: a transport without a batch path of its own gets one fiber per attempt, each on its own.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { type AttemptOutcome, type AttemptRequest, sendEach, type WebhookTransportShape } from "@frank/core"

const request = (url: string): AttemptRequest => ({ url, headers: {}, body: new Uint8Array(), timeoutMs: 10_000 })

describe("sendEach", () => {
  it.effect("an attempt interrupted mid-request ends alone, its siblings report", () =>
    Effect.gen(function* () {
      const send: WebhookTransportShape["send"] = (r) =>
        r.url === "crash"
          ? Effect.interrupt
          : Effect.succeed<AttemptOutcome>({ _tag: "Answered", status: r.url === "ok" ? 200 : 500 })
      const reports: Array<readonly [number, AttemptOutcome]> = []
      yield* sendEach(send)([request("ok"), request("crash"), request("fail")], (i, o) => reports.push([i, o]))
      expect(reports).toEqual([
        [0, { _tag: "Answered", status: 200 }],
        [2, { _tag: "Answered", status: 500 }]
      ])
    })
  )

  it.effect("interrupting the batch interrupts every attempt still running", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      let interrupted = 0
      const send: WebhookTransportShape["send"] = () =>
        Effect.zipRight(Deferred.succeed(started, undefined), Effect.never).pipe(
          Effect.onInterrupt(() =>
            Effect.sync(() => {
              interrupted++
            })
          )
        )
      const reports: Array<number> = []
      const fiber = yield* Effect.fork(sendEach(send)([request("a"), request("b")], (i) => reports.push(i)))
      yield* Deferred.await(started)
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(fiber)
      expect(interrupted).toBe(2)
      expect(reports).toEqual([])
    })
  )
})

/**
 * sendEach: a transport without a batch path of its own gets one fiber per attempt, each on its own.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { Webhooks } from "@frank/core"

const request = (url: string): Webhooks.AttemptRequest => ({
  url,
  headers: {},
  body: new Uint8Array(),
  timeoutMs: 10_000
})

describe("sendEach", () => {
  it.effect("an attempt interrupted mid-request ends alone, its siblings report", () =>
    Effect.gen(function* () {
      const send: Webhooks.WebhookTransportShape["send"] = (r) =>
        r.url === "crash"
          ? Effect.interrupt
          : Effect.succeed<Webhooks.AttemptOutcome>({ _tag: "Answered", status: r.url === "ok" ? 200 : 500 })
      const reports: Array<readonly [number, Webhooks.AttemptOutcome]> = []
      yield* Webhooks.sendEach(send)(
        [request("ok"), request("crash"), request("fail")],
        (i, o) => reports.push([i, o]),
        Effect.succeed(true)
      )
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
      const send: Webhooks.WebhookTransportShape["send"] = () =>
        Effect.zipRight(Deferred.succeed(started, undefined), Effect.never).pipe(
          Effect.onInterrupt(() =>
            Effect.sync(() => {
              interrupted++
            })
          )
        )
      const reports: Array<number> = []
      const fiber = yield* Effect.fork(
        Webhooks.sendEach(send)([request("a"), request("b")], (i) => reports.push(i), Effect.succeed(true))
      )
      yield* Deferred.await(started)
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(fiber)
      expect(interrupted).toBe(2)
      expect(reports).toEqual([])
    })
  )

  it.effect("runs release first and starts nothing when it answers false", () =>
    Effect.gen(function* () {
      const sent: Array<string> = []
      const send: Webhooks.WebhookTransportShape["send"] = (r) =>
        Effect.sync(() => {
          sent.push(r.url)
          return { _tag: "Answered", status: 200 } as const
        })
      const reports: Array<number> = []
      const release = (go: boolean) => Effect.sync(() => sent.push("release")).pipe(Effect.as(go))
      yield* Webhooks.sendEach(send)([request("a")], (i) => reports.push(i), release(false))
      expect(sent).toEqual(["release"])
      yield* Webhooks.sendEach(send)([request("b")], (i) => reports.push(i), release(true))
      expect(sent).toEqual(["release", "release", "b"])
      expect(reports).toEqual([0])
    })
  )
})

/**
 * Fencing outcomes by claim: an answer that comes back after its lease ran out is not recorded,
 * even when the same worker has claimed the delivery again since (the delivery turned
 * `uncertain`, was replayed, and the worker's next claim took it).
 */
import { describe, expect, it } from "@effect/vitest"
import { Webhooks } from "@frank/core"
import { MemoryWebhookStore, testPartner } from "@frank/core/testing"
import { Deferred, Duration, Effect, Fiber, Layer, TestClock } from "effect"
import { workerEngine } from "./support/workerEngine.js"

const T0 = Date.UTC(2026, 0, 1)
const config = {
  concurrency: 4,
  batchSize: 4,
  leaseMs: 30_000,
  pollIntervalMs: 1_000,
  drainMs: 1_000,
  sweepIntervalMs: 1_000
}

/** A transport whose attempts wait until the test answers them, in the order they were sent. */
const makeHeldTransport = () => {
  const held: Array<{
    readonly request: Webhooks.AttemptRequest
    readonly answer: Deferred.Deferred<Webhooks.AttemptOutcome>
  }> = []
  const send = (request: Webhooks.AttemptRequest) =>
    Effect.flatMap(Deferred.make<Webhooks.AttemptOutcome>(), (answer) =>
      Effect.zipRight(
        Effect.sync(() => held.push({ request, answer })),
        Deferred.await(answer)
      )
    )
  const transport = { send, sendBatch: Webhooks.sendEach(send) }
  return { held, transport }
}

/** Lets the forked worker run until `done` holds (the clock stands still); dies after a bounded number of turns. */
const settleUntil = <E, R>(what: string, done: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function* () {
    for (let turn = 0; turn < 10_000; turn++) {
      if (yield* done) return
      yield* Effect.yieldNow()
    }
    return yield* Effect.dieMessage(`never happened: ${what}`)
  })

describe("DeliveryWorker fencing", () => {
  it.effect(
    "a late answer to an expired claim is dropped after the same worker claimed the replayed delivery again",
    () => {
      const { held, transport } = makeHeldTransport()
      // What the worker reports: the late answer must not count, its delivery was counted uncertain.
      const reports: Array<string> = []
      const observer = Layer.succeed(Webhooks.DeliveryObserver, {
        attemptsRecorded: (finished) =>
          Effect.sync(() => reports.push(...finished.map((f) => `${f.attempt.responseStatus}→${f.next.status}`))),
        leasesExpired: (count) => Effect.sync(() => reports.push(`expired ${count}`))
      })
      const engine = workerEngine(
        config,
        MemoryWebhookStore.layer,
        Layer.succeed(Webhooks.WebhookTransport, transport)
      ).pipe(Layer.provide(observer))
      return Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const webhooks = yield* Webhooks.Webhooks
        const worker = yield* Webhooks.DeliveryWorker
        const endpoint = yield* webhooks.createEndpoint(testPartner("p1"), { url: "https://receiver.test/hook" })
        yield* webhooks.sendTest(testPartner("p1"), endpoint.id)
        const delivery = Effect.map(
          webhooks.listDeliveries(testPartner("p1"), {}, 10, undefined),
          ({ deliveries }) => deliveries[0]
        )
        const fiber = yield* Effect.fork(worker.run)
        yield* settleUntil(
          "the first attempt",
          Effect.sync(() => held.length === 1)
        )
        // The first attempt outlives its lease: the worker's sweep makes the delivery uncertain.
        yield* TestClock.adjust(Duration.millis(config.leaseMs + 2 * config.sweepIntervalMs))
        const expired = yield* delivery
        expect(expired?.status).toBe("uncertain")
        yield* webhooks.replay(testPartner("p1"), expired!.id)
        yield* settleUntil(
          "the replayed attempt",
          Effect.sync(() => held.length === 2)
        )
        expect(held[1]?.request.headers["x-service-event-id"]).toBe(held[0]?.request.headers["x-service-event-id"])
        // The first attempt's answer arrives now, late: its claim is gone, so it records nothing.
        yield* Deferred.succeed(held[0]?.answer as Deferred.Deferred<Webhooks.AttemptOutcome>, {
          _tag: "Answered",
          status: 200
        })
        // The replayed attempt fails: that is the outcome to record, and the delivery is retried.
        yield* Deferred.succeed(held[1]?.answer as Deferred.Deferred<Webhooks.AttemptOutcome>, {
          _tag: "Answered",
          status: 500
        })
        yield* settleUntil(
          "an outcome recorded",
          Effect.map(delivery, (d) => d?.status !== "delivering")
        )
        const after = yield* delivery
        expect(after?.status).toBe("pending")
        expect(after?.responseCodes.at(-1)).toBe(500)
        expect(after?.responseCodes).not.toContain(200)
        expect(reports).toEqual(["expired 1", "500→pending"])
        yield* Fiber.interrupt(fiber)
      }).pipe(Effect.provide(engine))
    }
  )
})

/**
 * Graceful stop: no new claims, in-flight attempts finish and their outcomes are written, together
 * within `drainMs`; then the collector and writer stop. Attempts still running after that are
 * abandoned: their deliveries become uncertain when their leases run out.
 */
import { Duration, Effect, Fiber, FiberSet, Option } from "effect"
import type { StoreError } from "../../../StoreError.js"
import type { AnswerSink } from "./batch/answerInbox.js"
import { DRAINED, type Drained } from "./batch/BatchMessage.js"

export interface Draining {
  readonly drainMs: number
  readonly loop: Fiber.Fiber<never, StoreError>
  readonly inflight: FiberSet.FiberSet<void, StoreError>
  readonly answers: AnswerSink<Drained>
  readonly collector: Fiber.Fiber<void>
  readonly writer: Fiber.Fiber<void>
}

export const drain = (d: Draining): Effect.Effect<void> =>
  Effect.gen(function* () {
    // The loop stops at its next interruptible point (never inside a claim); that wait counts
    // against drainMs too, so a hung database cannot hold shutdown forever.
    yield* Fiber.interruptFork(d.loop)
    // Finalizers run uninterruptibly; without `interruptible` the timeout could not end the wait.
    const drained = yield* Effect.interruptible(
      Effect.all([
        Fiber.await(d.loop),
        FiberSet.awaitEmpty(d.inflight),
        // Every batch has queued its end by now; the marker goes behind them.
        d.answers.offer(DRAINED),
        Fiber.await(d.collector),
        Fiber.await(d.writer)
      ])
    ).pipe(Effect.timeout(Duration.millis(d.drainMs)), Effect.option)
    if (Option.isNone(drained))
      yield* Effect.logWarning(
        "delivery worker: in-flight attempts did not finish in time; their deliveries will become uncertain"
      )
    yield* Fiber.interrupt(d.collector)
    yield* Fiber.interrupt(d.writer)
  }).pipe(Effect.ignore)

/**
 * The long-lived worker: the claim loop, the answer collector and the outcome writer, each a fiber
 * of its own, and the drain on shutdown. Per delivery it costs a share of one claim and one outcome
 * write. A crash before an outcome is written leaves the delivery to its lease (uncertain), as a
 * crash mid-request does.
 */
import { Effect, Fiber, FiberSet, Queue } from "effect"
import type { StoreError } from "../../../StoreError.js"
import type { FinishedAttempt } from "../../Delivery.js"
import { answerCollector } from "./batch/answerCollector.js"
import { makeAnswerInbox } from "./batch/answerInbox.js"
import type { BatchMessage, Drained } from "./batch/BatchMessage.js"
import { claimAndStart } from "./claimAndStart.js"
import { claimLoop } from "./claimLoop.js"
import { drain } from "./drain.js"
import { outcomeWriter } from "./outcomeWriter.js"
import { WorkerLoad } from "./WorkerLoad.js"
import type { WorkerParts } from "./WorkerParts.js"

export const run = (parts: WorkerParts): Effect.Effect<never, StoreError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const load = new WorkerLoad(parts.config.concurrency)
      const inflight = yield* FiberSet.make<void, StoreError>()
      const answers = makeAnswerInbox<BatchMessage | Drained>()
      const writes = yield* Queue.unbounded<FinishedAttempt | Drained>()
      // In the scope, not children of this fiber: children would be interrupted with the loop on
      // shutdown, and the outcomes of the attempts still draining would never be written.
      const writer = yield* Effect.forkScoped(outcomeWriter(writes, parts.record, load, parts.wakeup))
      const collector = yield* Effect.forkScoped(answerCollector(answers, writes, load, parts.wakeup))
      const loop = yield* Effect.fork(claimLoop(parts, load, claimAndStart(parts, load, inflight, answers)))
      yield* Effect.addFinalizer(() =>
        drain({ drainMs: parts.config.drainMs, loop, inflight, answers, collector, writer })
      )
      return yield* Fiber.join(loop)
    })
  )

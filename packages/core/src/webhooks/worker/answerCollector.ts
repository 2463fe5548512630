/**
 * The fiber between the transport's callbacks and the writer: takes the queued answers in runs,
 * settles their slots (freeing them for the claim loop at once, before the outcome is written),
 * hands the finished attempts to the writer, and wakes the loop when the freed slots can change its
 * decision. Until its outcome is written a delivery stays `delivering` under its lease, exactly as
 * while the request was in flight, so nothing else can claim it.
 */
import { Chunk, Effect, Queue } from "effect"
import type { FinishedAttempt } from "../Delivery.js"
import type { DeliveryWakeupShape } from "../../events/DeliveryWakeup.js"
import { type BatchMessage, DRAINED, type Drained } from "./BatchMessage.js"
import { settleAnswers } from "./settleAnswers.js"
import { MAX_WRITE_BATCH } from "./WorkerConfig.js"
import type { WorkerLoad } from "./WorkerLoad.js"

export const answerCollector = (
  answers: Queue.Dequeue<BatchMessage | Drained>,
  writes: Queue.Enqueue<FinishedAttempt | Drained>,
  load: WorkerLoad,
  wakeup: DeliveryWakeupShape
): Effect.Effect<void> =>
  Effect.gen(function* () {
    for (;;) {
      const taken = yield* Queue.takeBetween(answers, 1, MAX_WRITE_BATCH)
      const { finished, drained } = yield* settleAnswers(Chunk.toReadonlyArray(taken))
      if (finished.length > 0) {
        load.unwritten += finished.length
        yield* writes.offerAll(finished)
      }
      if (load.takeWake()) yield* wakeup.signal
      if (drained) {
        yield* writes.offer(DRAINED)
        return
      }
    }
  })

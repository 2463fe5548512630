/**
 * The fiber between the transport's callbacks and the writer: takes the queued answers in runs
 * (woken when enough have arrived to matter to the claim loop, or at the turn's end: answerInbox),
 * settles their slots (freeing them for the claim loop at once, before the outcome is written),
 * hands the finished attempts to the writer, and wakes the loop when the freed slots can change its
 * decision. Until its outcome is written a delivery stays `delivering` under its lease, exactly as
 * while the request was in flight, so nothing else can claim it.
 */
import { Effect, type Queue } from "effect"
import type { FinishedAttempt } from "../../../Delivery.js"
import type { DeliveryWakeupShape } from "../../../../events/DeliveryWakeup.js"
import type { AnswerInbox } from "./answerInbox.js"
import { type BatchMessage, DRAINED, type Drained } from "./BatchMessage.js"
import { settleAnswers } from "./settleAnswers.js"
import type { WorkerLoad } from "../WorkerLoad.js"

export const answerCollector = (
  answers: AnswerInbox<BatchMessage | Drained>,
  writes: Queue.Enqueue<FinishedAttempt | Drained>,
  load: WorkerLoad,
  wakeup: DeliveryWakeupShape
): Effect.Effect<void> =>
  Effect.gen(function* () {
    for (;;) {
      const taken = yield* answers.takeAll(load.answersThatMatter)
      const { finished, drained } = yield* settleAnswers(taken)
      if (finished.length > 0) {
        load.queuedForWriting(finished.length)
        yield* writes.offerAll(finished)
      }
      if (load.takeWake()) yield* wakeup.signal
      if (drained) {
        yield* writes.offer(DRAINED)
        return
      }
    }
  })

/**
 * The step-by-step path simulations drive under TestClock: sweeps, then claims and attempts
 * everything due at this instant, batch after batch, writing each batch's outcomes before the
 * next claim, and applies the health rule once more if it attempted anything (a dead letter just
 * written may complete an endpoint's case, due at this very instant). Answers how many deliveries
 * were attempted.
 */
import { Effect } from "effect"
import type { StoreError } from "../../../StoreError.js"
import { makeAnswerInbox } from "./batch/answerInbox.js"
import { attemptBatch } from "./batch/attemptBatch.js"
import { makeBatchSlots } from "./batch/batchSlots.js"
import type { BatchMessage } from "./batch/BatchMessage.js"
import { settleAnswers } from "./batch/settleAnswers.js"
import type { WorkerParts } from "./WorkerParts.js"

export const runDue = (parts: WorkerParts): Effect.Effect<number, StoreError> =>
  Effect.gen(function* () {
    yield* parts.sweep
    const limit = Math.max(1, Math.min(parts.config.batchSize, parts.config.concurrency))
    let total = 0
    for (;;) {
      const batch = yield* parts.claim(limit)
      if (batch.length === 0) {
        if (total > 0) yield* parts.healthCheck
        return total
      }
      total += batch.length
      const answers = makeAnswerInbox<BatchMessage>()
      const slots = makeBatchSlots(batch.length, () => {})
      yield* Effect.ensuring(attemptBatch(parts, batch, slots, answers), answers.offer({ _tag: "Ended", slots }))
      // The batch has ended, so its messages are all queued (its end among them).
      const { finished } = yield* settleAnswers(yield* answers.takeAll(1))
      yield* parts.record(finished)
    }
  })

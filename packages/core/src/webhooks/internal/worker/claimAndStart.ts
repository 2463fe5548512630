/**
 * Claims and starts the attempts as one step that shutdown cannot cut: interrupted after the claim
 * committed but before the attempts started, the deliveries would sit out their lease and end up
 * uncertain without a request ever sent. (It also keeps the loop from being interrupted
 * mid-statement: @effect/sql-pg cancels an interrupted statement with pg_cancel_backend, which can
 * reach the next statement on that connection once it is back in the pool.) The attempts
 * themselves stay interruptible.
 */
import { Cause, Effect, FiberSet } from "effect"
import type { StoreError } from "../../../StoreError.js"
import type { ClaimedDelivery } from "../../Delivery.js"
import type { AnswerSink } from "./batch/answerInbox.js"
import { attemptBatch } from "./batch/attemptBatch.js"
import { makeBatchSlots } from "./batch/batchSlots.js"
import type { BatchMessage } from "./batch/BatchMessage.js"
import type { WorkerLoad } from "./WorkerLoad.js"
import type { WorkerParts } from "./WorkerParts.js"

export const claimAndStart =
  (
    parts: WorkerParts,
    load: WorkerLoad,
    inflight: FiberSet.FiberSet<void, StoreError>,
    answers: AnswerSink<BatchMessage>
  ) =>
  (limit: number): Effect.Effect<ReadonlyArray<ClaimedDelivery>, StoreError> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.tap(parts.claim(limit), (batch) => {
        if (batch.length === 0) return Effect.void
        load.claimed(batch.length)
        const slots = makeBatchSlots(batch.length, (count) => load.freed(count))
        // The batch is a fiber of its own, started uninterruptible (forked in this mask), so its
        // end is queued whenever it ends, even if interrupted before the batch began.
        return FiberSet.run(
          inflight,
          restore(attemptBatch(parts, batch, slots, answers)).pipe(
            Effect.catchAllCause((cause) =>
              Cause.isInterruptedOnly(cause)
                ? Effect.failCause(cause)
                : Effect.logError("delivery worker: an attempt batch failed", cause)
            ),
            Effect.ensuring(answers.offer({ _tag: "Ended", slots }))
          )
        )
      })
    )

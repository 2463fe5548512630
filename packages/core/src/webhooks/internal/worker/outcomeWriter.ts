/**
 * The one fiber that writes outcomes: it records the outcomes queued while it wrote the previous
 * ones in one statement (at most MAX_WRITE_BATCH), so the database sees one write per run of
 * answers, not one per delivery. It stops at the shutdown marker, after the outcomes before it.
 */
import { Chunk, Effect, Queue } from "effect"
import type { FinishedAttempt } from "../../Delivery.js"
import type { DeliveryWakeupShape } from "../../../events/DeliveryWakeup.js"
import { DRAINED, type Drained } from "./batch/BatchMessage.js"
import { MAX_WRITE_BATCH } from "../../WorkerConfig.js"
import type { WorkerLoad } from "./WorkerLoad.js"

export const outcomeWriter = (
  writes: Queue.Dequeue<FinishedAttempt | Drained>,
  record: (finished: ReadonlyArray<FinishedAttempt>) => Effect.Effect<void>,
  load: WorkerLoad,
  wakeup: DeliveryWakeupShape
): Effect.Effect<void> =>
  Effect.gen(function* () {
    for (;;) {
      const taken = Chunk.toReadonlyArray(yield* Queue.takeBetween(writes, 1, MAX_WRITE_BATCH))
      const batch = taken.filter((f): f is FinishedAttempt => f !== DRAINED)
      if (batch.length > 0) {
        yield* record(batch)
        load.written(batch.length)
        // A backlogged loop waits for the writer.
        yield* wakeup.signal
      }
      if (batch.length < taken.length) return
    }
  })

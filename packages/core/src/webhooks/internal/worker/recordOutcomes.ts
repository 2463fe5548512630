/**
 * Writes finished attempts in one statement and reports what the store recorded. A store failure
 * leaves those claims to their leases: the deliveries become `uncertain`, as after a crash.
 */
import { Clock, Effect } from "effect"
import type { FinishedAttempt } from "../../Delivery.js"
import type { DeliveryQueueShape } from "../../store/DeliveryQueue.js"
import type { Reports } from "./reports.js"

export const recordOutcomes =
  (store: DeliveryQueueShape, reports: Reports) =>
  (finished: ReadonlyArray<FinishedAttempt>): Effect.Effect<void> =>
    finished.length === 0
      ? Effect.void
      : Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.matchCauseEffect(store.finishAttempts(finished, now), {
            onFailure: (cause) =>
              Effect.logError(
                `delivery worker: could not record the attempts on ${finished.map((f) => f.claim.id).join(", ")}`,
                cause
              ),
            onSuccess: (ids) => reports.attemptsRecorded(finished, ids)
          })
        )

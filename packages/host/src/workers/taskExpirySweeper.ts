/**
 * Runs the task hold expiry sweep inside the host, next to the delivery worker: once a minute
 * (and once at start) unfinished tasks past their `expiresAt` fail with TASK_EXPIRED and their
 * holds are refunded, in bounded batches (core's TaskExpiry). Several hosts on one database may
 * sweep at the same time: each task is locked and decided again, so it expires once. A failed
 * sweep (a database outage) is logged and the loop restarts after a pause.
 */
import { Tasks } from "@frank/core"
import { Effect, Layer, Schedule } from "effect"

const RESTART_PAUSE = "1 minute"

export const taskExpirySweeperLayer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const expiry = yield* Tasks.TaskExpiry
    yield* Effect.forkScoped(
      Effect.sandbox(expiry.run).pipe(
        Effect.tapError((cause) => Effect.logError(`task expiry stopped; restarting in ${RESTART_PAUSE}`, cause)),
        Effect.retry(Schedule.spaced(RESTART_PAUSE))
      )
    )
  })
)

/**
 * Runs webhook retention inside the host, next to the delivery worker: once an hour (and once at
 * start) events and finished deliveries older than FRANK_WEBHOOK_RETENTION_DAYS are removed in
 * bounded batches (core's WebhookRetention). Several hosts on one database may sweep at the same
 * time: each skips the rows another holds. A failed sweep (a database outage) is logged and the
 * loop restarts after a pause.
 */
import { WebhookRetention } from "@frank/core"
import { Effect, Layer, Schedule } from "effect"

const RESTART_PAUSE = "1 minute"

export const retentionSweeperLayer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const retention = yield* WebhookRetention
    yield* Effect.forkScoped(
      Effect.sandbox(retention.run).pipe(
        Effect.tapError((cause) => Effect.logError(`webhook retention stopped; restarting in ${RESTART_PAUSE}`, cause)),
        Effect.retry(Schedule.spaced(RESTART_PAUSE))
      )
    )
  })
)

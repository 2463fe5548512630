/**
 * Runs webhook retention inside the host, next to the delivery worker: once an hour (and once at
 * start) events and finished deliveries older than FRANK_WEBHOOK_RETENTION_DAYS are removed
 * (core's WebhookRetention). On the SQL store history lives in day partitions (migration 0032):
 * each sweep first creates the next three days, then drops whole days whose deliveries are all
 * finished, and deletes in bounded batches only inside days a pending delivery still holds. A
 * host stopped for longer than the days ahead loses nothing: rows go to the default partition
 * and the next slot starts after them. Several hosts on one database may sweep at the same
 * time: each skips the rows another holds, and slots are made and dropped under a lock. A failed sweep (a database outage) is logged and the
 * loop restarts after a pause. The audit log's retention (FRANK_AUDIT_RETENTION_DAYS, core's
 * AuditLog.run) and the stored idempotent answers' 24 h retention run beside it the same way.
 */
import { Audit, Webhooks } from "@frank/core"
import { Idempotency } from "@frank/core/http"
import { Effect, Layer, Schedule } from "effect"

const RESTART_PAUSE = "1 minute"

/**
 * Stored idempotent answers older than 24 hours go once an hour (and at start), in batches of
 * `IDEMPOTENCY_SWEEP_BATCH` rows per statement.
 */
const idempotencySweep = Effect.repeat(
  Idempotency.sweepExpiredAnswers().pipe(
    Effect.tap((n) =>
      n > 0
        ? Effect.logInfo("expired idempotency answers deleted").pipe(Effect.annotateLogs({ answers: n }))
        : Effect.void
    )
  ),
  Schedule.spaced("1 hour")
)

export const retentionSweeperLayer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const retention = yield* Webhooks.WebhookRetention
    const audit = yield* Audit.AuditLog
    const restarting = <A, R>(name: string, run: Effect.Effect<A, unknown, R>) =>
      Effect.forkScoped(
        Effect.sandbox(run).pipe(
          Effect.tapError((cause) =>
            Effect.logError(`${name} retention stopped; restarting in ${RESTART_PAUSE}`, cause)
          ),
          Effect.retry(Schedule.spaced(RESTART_PAUSE))
        )
      )
    yield* restarting("webhook", retention.run)
    yield* restarting("audit", audit.run)
    yield* restarting("idempotency", idempotencySweep)
  })
)

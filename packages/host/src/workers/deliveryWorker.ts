/**
 * Runs the webhook delivery worker inside the host. Every commit that makes deliveries due signals
 * the worker in-process; on Postgres the host also LISTENs on the outbox channel, so an event
 * committed by another host instance wakes this one at once (its own NOTIFYs are skipped, see
 * notifyOrigin.ts).
 *
 * A database outage does not stop the worker for good: the loop restarts after a pause and the
 * failure is logged. Shutdown (SIGTERM) interrupts the loop; the worker then lets in-flight
 * attempts finish before the process exits.
 */
import { WEBHOOK_NOTIFY_CHANNEL } from "@frank/adapters"
import { PgClient } from "@effect/sql-pg"
import { DeliveryWakeup, DeliveryWorker } from "@frank/core"
import { Effect, Layer, Schedule, Stream } from "effect"

const RESTART_PAUSE = "2 seconds"

const restarting = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.tapErrorCause((cause) => Effect.logError(`${name} stopped; restarting in ${RESTART_PAUSE}`, cause)),
    Effect.retry(Schedule.spaced(RESTART_PAUSE))
  )

export interface DeliveryWorkerOptions {
  /** LISTEN for other instances' events (Postgres only). */
  readonly listen: boolean
  /** Notifications this instance sent itself, skipped: its worker is woken in-process already. */
  readonly isOwnNotification: (payload: string) => boolean
}

export const deliveryWorkerLayer = (options: DeliveryWorkerOptions) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const worker = yield* DeliveryWorker
      yield* Effect.forkScoped(restarting("webhook delivery worker", worker.run))
      if (options.listen) {
        const pg = yield* PgClient.PgClient
        const wakeup = yield* DeliveryWakeup
        const foreign = pg.listen(WEBHOOK_NOTIFY_CHANNEL).pipe(Stream.filter((payload) => !options.isOwnNotification(payload)))
        yield* Effect.forkScoped(restarting("webhook NOTIFY listener", Stream.runForEach(foreign, () => wakeup.signal)))
      }
    })
  )

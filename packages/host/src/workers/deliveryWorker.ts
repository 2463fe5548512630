/**
 * Runs the webhook delivery worker inside the host. Every commit that makes deliveries due signals
 * the worker in-process; on Postgres the host also LISTENs on the outbox channel, so an event
 * committed by another host instance wakes this one at once (its own NOTIFYs are skipped, see
 * notifyOrigin.ts). The listener checks every 30 s that it still hears the channel and is restarted
 * when it does not (watchedListener.ts).
 *
 * A database outage does not stop the worker for good: the loop restarts after a pause and the
 * failure is logged. Shutdown (SIGTERM) interrupts the loop; the worker then lets in-flight
 * attempts finish before the process exits.
 */
import { randomUUID } from "node:crypto"
import { DatabaseSchema, PgChannelListener, webhookNotifyChannel } from "@frank/adapters"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Events, Webhooks } from "@frank/core"
import { Effect, Layer, Schedule } from "effect"
import { PROBE_PREFIX, runWatchedListener } from "./watchedListener.js"

const RESTART_PAUSE = "2 seconds"

/** How often the listener checks it still hears the channel, and how long it waits for its probe. */
const LISTENER_PROBE_EVERY_MS = 30_000
const LISTENER_PROBE_TIMEOUT_MS = 5_000

/**
 * Restarts `effect` after a pause whenever it stops, defects included: a listener whose dead
 * connection makes its UNLISTEN finalizer throw must come back too, not end for good.
 */
const restarting = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>) =>
  Effect.sandbox(effect).pipe(
    Effect.tapError((cause) => Effect.logError(`${name} stopped; restarting in ${RESTART_PAUSE}`, cause)),
    Effect.retry(Schedule.spaced(RESTART_PAUSE))
  )

export interface DeliveryWorkerOptions {
  /** LISTEN for other instances' events (Postgres only). */
  readonly listen: boolean
  /** Notifications this instance sent itself, skipped: its worker is woken in-process already. */
  readonly isOwnNotification: (payload: string) => boolean
  /** How often the listener checks that it still hears the channel, and how long it waits for its probe (30 s and 5 s by default; tests shorten them). */
  readonly listenerProbe?: { readonly everyMs: number; readonly timeoutMs: number }
}

export const deliveryWorkerLayer = (options: DeliveryWorkerOptions) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const worker = yield* Webhooks.DeliveryWorker
      yield* Effect.forkScoped(restarting("webhook delivery worker", worker.run))
      if (options.listen) {
        const pg = yield* PgClient.PgClient
        // The channel of this host's schema: hosts of other Frank schemas in the database stay asleep.
        const channel = webhookNotifyChannel((yield* DatabaseSchema.DatabaseSchema).name)
        const wakeup = yield* Events.DeliveryWakeup
        const listener = runWatchedListener({
          // A connection of its own when the URL is known (always, in the host): it fails when lost
          // and is dropped at once, even half-open; sql-pg's shared one only goes silent.
          notifications:
            pg.config.url === undefined
              ? pg.listen(channel)
              : PgChannelListener.listen(
                  { url: pg.config.url, applicationName: `${pg.config.applicationName ?? "frank"}-listen` },
                  channel
                ),
          send: (payload) => Effect.asVoid(pg`SELECT pg_notify(${channel}, ${payload})`),
          probe: `${PROBE_PREFIX}${randomUUID()}`,
          onPayload: (payload) => (options.isOwnNotification(payload) ? Effect.void : wakeup.signal),
          probeEveryMs: options.listenerProbe?.everyMs ?? LISTENER_PROBE_EVERY_MS,
          probeTimeoutMs: options.listenerProbe?.timeoutMs ?? LISTENER_PROBE_TIMEOUT_MS
        })
        yield* Effect.forkScoped(restarting("webhook NOTIFY listener", listener))
      }
    })
  )

/**
 * EventAnnouncer over Postgres NOTIFY, sent after commit and coalesced: however many commits
 * announce meanwhile, one NOTIFY is sent, then a pause (minIntervalMs), then one more for all
 * the announcements made meanwhile. Other instances
 * listening on the schema's channel (`webhookNotifyChannel`) wake and claim whatever is due, so one notification per
 * burst is as good as one per event.
 *
 * Why not NOTIFY inside each business transaction (the SQL store's default): Postgres holds its
 * notification queue lock from a notifying transaction's pre-commit through its WAL flush, so all
 * such transactions commit one at a time (measured: 16 connections, 5.9k commits/s without,
 * 2.4k/s with). Sent from here, only one connection per process notifies, and business commits
 * run in parallel again.
 *
 * A failed NOTIFY is logged and dropped: other instances then find the work at their next poll.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Events } from "@frank/core"
import { Duration, Effect, Layer, Queue, type Scope } from "effect"
import { checkNotifyPayload, pgNotify } from "./webhooks/webhookNotify.js"

export interface PgNotifyAnnouncerOptions {
  /** What the notifications carry: the host's instance id, so its own listener can skip them. */
  readonly payload: string
  /**
   * Pause after each NOTIFY before the next (default 50 ms): announcements meanwhile wait and
   * collapse into one. It bounds this process to 1000 / minIntervalMs NOTIFYs a second, whatever
   * its commit rate; other instances hear of new work at most this much later. Its own worker is
   * not affected: the outbox wakes it in-process.
   */
  readonly minIntervalMs?: number
}

export const DEFAULT_ANNOUNCE_INTERVAL_MS = 50
/** A NOTIFY not answered within this is given up (logged); the next announcement tries again. */
const NOTIFY_TIMEOUT_MS = 5_000

export const make = (
  options: PgNotifyAnnouncerOptions
): Effect.Effect<Events.EventAnnouncerShape, never, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function* () {
    const payload = yield* checkNotifyPayload(options.payload)
    const sql = yield* SqlClient.SqlClient
    // A sliding queue of one: announcements made while a NOTIFY is in flight collapse into one.
    const pending = yield* Queue.sliding<void>(1)
    // Bounded: a NOTIFY stuck on a half-open connection must not stop every later announcement.
    // The statement itself interruptible, so that the timeout can cut it off; the whole (statement,
    // timeout, logging) uninterruptible, so that shutdown waits at most the timeout for it.
    const notifyOnce = Effect.interruptible(sql`SELECT ${pgNotify(sql, payload)}`).pipe(
      Effect.timeoutFail({
        duration: Duration.millis(NOTIFY_TIMEOUT_MS),
        onTimeout: () => `no answer within ${NOTIFY_TIMEOUT_MS} ms`
      }),
      Effect.catchAllCause((cause) =>
        Effect.logWarning("webhook NOTIFY failed; other instances will find the deliveries at their next poll", cause)
      ),
      Effect.uninterruptible
    )
    // On shutdown, an announcement still waiting (made during the last pause, by a request that
    // committed while the host drained) is sent before the pool closes, not dropped. Added before
    // the loop's fork, so it runs after the loop has been interrupted.
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(Queue.poll(pending), (waiting) => (waiting._tag === "Some" ? notifyOnce : Effect.void))
    )
    const pause = Effect.sleep(Duration.millis(options.minIntervalMs ?? DEFAULT_ANNOUNCE_INTERVAL_MS))
    yield* Effect.forkScoped(
      Effect.forever(Queue.take(pending).pipe(Effect.zipRight(notifyOnce), Effect.zipRight(pause)))
    )
    return { announce: Effect.asVoid(Queue.offer(pending, undefined)) }
  })

export const layer = (
  options: PgNotifyAnnouncerOptions
): Layer.Layer<Events.EventAnnouncer, never, SqlClient.SqlClient> => Layer.scoped(Events.EventAnnouncer, make(options))

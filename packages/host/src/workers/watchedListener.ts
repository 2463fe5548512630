/**
 * A LISTEN that notices when it has gone deaf.
 *
 * A LISTEN connection can go silent without failing (@effect/sql-pg's shared one ignores its
 * connection's errors; any connection can end up half-open), and other instances' events would
 * then no longer wake this one (its poll still finds them, a second later). So every `probeEveryMs` this sends a probe on the
 * channel and fails with ListenerDeaf if it does not hear it back within `probeTimeoutMs`. The
 * caller restarts it; a new stream takes a new connection once the old one is released.
 *
 * The host feeds it from a LISTEN connection of its own (`PgChannelListener.listen` in
 * @frank/adapters), which also fails at once when the connection reports its loss, and whose
 * socket is destroyed on close: a half-open connection (no answer, no close) is then found by
 * the probe and dropped without waiting on it.
 */
import { Data, Duration, Effect, Queue, Stream } from "effect"

export class ListenerDeaf extends Data.TaggedError("ListenerDeaf")<{ readonly message: string }> {}

/** Every instance's probes start with this; listeners pass none of them on (see `isProbe`). */
export const PROBE_PREFIX = "probe:"

export const isProbe = (payload: string): boolean => payload.startsWith(PROBE_PREFIX)

export interface WatchedListenerOptions<E1, E2> {
  /** The channel's notifications (payloads). */
  readonly notifications: Stream.Stream<string, E1>
  /** Sends `payload` on the channel. */
  readonly send: (payload: string) => Effect.Effect<void, E2>
  /** This listener's own probe, `PROBE_PREFIX` + something unique. */
  readonly probe: string
  /** Every payload that is no probe. */
  readonly onPayload: (payload: string) => Effect.Effect<void>
  readonly probeEveryMs: number
  readonly probeTimeoutMs: number
}

/** Runs until the stream fails or ends, or a probe goes unheard; never succeeds. */
export const runWatchedListener = <E1, E2>(
  options: WatchedListenerOptions<E1, E2>
): Effect.Effect<never, E1 | E2 | ListenerDeaf> =>
  Effect.gen(function* () {
    const echoes = yield* Queue.sliding<void>(1)
    const consume = Stream.runForEach(options.notifications, (payload) =>
      payload === options.probe
        ? Queue.offer(echoes, undefined)
        : isProbe(payload)
          ? Effect.void
          : options.onPayload(payload)
    ).pipe(Effect.zipRight(Effect.fail(new ListenerDeaf({ message: "the notification stream ended" }))))
    const heartbeat = Effect.forever(
      Effect.gen(function* () {
        yield* Effect.sleep(Duration.millis(options.probeEveryMs))
        // An echo left over from an earlier probe must not count for this one.
        yield* Queue.takeAll(echoes)
        // Sending counts against the timeout too: a pool that hangs must not stop the check.
        const heard = yield* Effect.timeout(
          Effect.zipRight(options.send(options.probe), Queue.take(echoes)),
          Duration.millis(options.probeTimeoutMs)
        ).pipe(Effect.option)
        if (heard._tag === "None")
          return yield* new ListenerDeaf({ message: `a probe was not heard back within ${options.probeTimeoutMs} ms` })
      })
    )
    return yield* Effect.raceFirst(consume, heartbeat)
  })

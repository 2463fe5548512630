/**
 * One batch of attempts on the HTTP transport, as `WebhookTransport.sendBatch` runs it.
 *
 * With held sockets (net/SocketHold.ts) the batch is written ahead: the sockets are held, every
 * attempt is started (connections opened, requests written into the held buffers), and only
 * then `release` runs (the worker's sent mark). When it answers true the hold is lifted in the
 * same turn, so a crash between the mark's commit and the first byte on the wire needs to land
 * in that one turn; when it answers false every attempt is aborted and its buffer dropped
 * unsent. Outcomes that come before the release (a refused connection) are kept and reported
 * after it, never before the mark. The wait for the batch to be written is bounded
 * (`PREPARE_LIMIT_MS`): a receiver slow to accept a connection does not hold up its batch; its
 * request goes out when connected, after the mark, as without a hold.
 *
 * Without a hold, `release` runs first and the attempts start after it.
 */
import type { Webhooks } from "@frank/core"
import { Duration, Effect, Exit } from "effect"
import type { SocketHold } from "../../net/SocketHold.js"

/** How long a batch waits for its requests to be written before the mark; see the module comment. */
export const PREPARE_LIMIT_MS = 250

/** Starts one attempt; `writing` is called when its request is about to be written. Returns its abandon. */
export type StartAttempt = (
  attempt: Webhooks.AttemptRequest,
  report: (outcome: Webhooks.AttemptOutcome) => void,
  writing?: () => void
) => () => void

type Outcome = readonly [index: number, outcome: Webhooks.AttemptOutcome]

export const runBatch = (
  start: StartAttempt,
  sockets: SocketHold | undefined,
  attempts: ReadonlyArray<Webhooks.AttemptRequest>,
  onOutcome: (index: number, outcome: Webhooks.AttemptOutcome) => void,
  release: Effect.Effect<boolean>
): Effect.Effect<void> => {
  if (attempts.length === 0) return Effect.asVoid(release)
  if (sockets === undefined)
    return Effect.flatMap(release, (go) =>
      go ? Effect.suspend(() => startAll(start, attempts, onOutcome).done) : Effect.void
    )
  return Effect.suspend(() => {
    const unhold = sockets.hold()
    let kept: Array<Outcome> | undefined = []
    let run: ReturnType<typeof startAll>
    try {
      run = startAll(start, attempts, (index, outcome) => {
        if (kept === undefined) onOutcome(index, outcome)
        else kept.push([index, outcome])
      })
    } catch (error) {
      unhold()
      throw error
    }
    // Right after the mark, in one synchronous step: the bytes go, then what was kept is reported.
    const releaseKept = (go: boolean) =>
      Effect.sync(() => {
        const outcomes = kept ?? []
        kept = undefined
        if (!go) run.abandonAll()
        unhold()
        if (go) for (const [index, outcome] of outcomes) onOutcome(index, outcome)
        return go
      })
    return run.prepared(PREPARE_LIMIT_MS).pipe(
      Effect.zipRight(release),
      Effect.flatMap(releaseKept),
      Effect.flatMap((go) => (go ? run.done : Effect.void)),
      Effect.onExit((exit) =>
        Effect.sync(() => {
          if (Exit.isFailure(exit)) run.abandonAll()
          unhold()
        })
      )
    )
  })
}

/**
 * Starts every attempt, each outcome going to `deliver`. `prepared` completes once each attempt
 * was written or has ended; `done` once each one has reported (interrupted, it abandons those in
 * flight).
 */
const startAll = (
  start: StartAttempt,
  attempts: ReadonlyArray<Webhooks.AttemptRequest>,
  deliver: (index: number, outcome: Webhooks.AttemptOutcome) => void
) => {
  let left = attempts.length
  let unprepared = attempts.length
  const prepared = new Uint8Array(attempts.length)
  let wakeDone: (() => void) | undefined
  let wakePrepared: (() => void) | undefined
  const prepare = (index: number) => {
    if (prepared[index] === 1) return
    prepared[index] = 1
    if (--unprepared === 0) wakePrepared?.()
  }
  const report = (index: number, outcome: Webhooks.AttemptOutcome) => {
    prepare(index)
    // The count goes down even if the callback throws (it runs inside undici's or the deadline
    // sweeper's callbacks): the batch must end all the same.
    try {
      deliver(index, outcome)
    } finally {
      if (--left === 0) wakeDone?.()
    }
  }
  const abandons: Array<() => void> = []
  const abandonAll = () => {
    for (const abandon of abandons) abandon()
  }
  try {
    for (let index = 0; index < attempts.length; index++)
      abandons.push(
        start(
          attempts[index] as Webhooks.AttemptRequest,
          (outcome) => report(index, outcome),
          () => prepare(index)
        )
      )
  } catch (error) {
    // A callback that threw while reporting synchronously: stop what was started.
    abandonAll()
    throw error
  }
  return {
    abandonAll,
    /** Waits, at most `limitMs`, until each attempt was written or has ended; no timer if already so. */
    prepared: (limitMs: number): Effect.Effect<void> =>
      Effect.suspend(() =>
        unprepared === 0
          ? Effect.void
          : Effect.async<void>((resume) => {
              wakePrepared = () => resume(Effect.void)
              return Effect.sync(() => {
                wakePrepared = undefined
              })
            }).pipe(Effect.timeoutTo({ duration: Duration.millis(limitMs), onSuccess: () => {}, onTimeout: () => {} }))
      ),
    done: Effect.async<void>((resume) => {
      if (left === 0) return resume(Effect.void)
      wakeDone = () => resume(Effect.void)
      return Effect.sync(abandonAll)
    })
  }
}

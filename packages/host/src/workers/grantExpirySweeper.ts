/**
 * Runs the expiry of bonus grants inside the host, next to the delivery worker: it wakes at the
 * soonest `expiresAt` (and at least once a minute) and expires what is due in bounded batches
 * (core's GrantExpiry). Several hosts on one database may sweep at once: each grant's expiry runs
 * under its partner's account lock and happens once. A failed sweep (a database outage) is
 * logged and the loop restarts after a pause.
 */
import { Ledger } from "@frank/core"
import { Effect, Layer, Schedule } from "effect"

const RESTART_PAUSE = "1 minute"

export const grantExpirySweeperLayer = Layer.scopedDiscard(
  Effect.gen(function* () {
    const expiry = yield* Ledger.GrantExpiry
    yield* Effect.forkScoped(
      Effect.sandbox(expiry.run).pipe(
        Effect.tapError((cause) => Effect.logError(`grant expiry stopped; restarting in ${RESTART_PAUSE}`, cause)),
        Effect.retry(Schedule.spaced(RESTART_PAUSE))
      )
    )
  })
)

/**
 * The expiry sweep of bonus grants: every grant past its `expiresAt` is expired through the
 * ledger (one `bonus_reversal` row and a `billing.bonus_expired` event per grant), in batches of
 * at most `batchSize` grants per read, like webhook retention. Several hosts may sweep at once: the
 * rule runs under the partner's account lock and leaves an expired grant alone.
 *
 * Two ways to drive it, as the delivery worker: `run` loops (a host forks it), `sweep` expires
 * what is due at the current instant, which the simulation kit steps under TestClock, waking at
 * `nextSweepAt` (the soonest expiry).
 */
import { Clock, Context, Duration, Effect, Layer } from "effect"
import type { StoreError } from "../StoreError.js"
import { MINUTE_MS } from "../timeUnits.js"
import { Ledger } from "./Ledger.js"
import type { LedgerError } from "./LedgerError.js"
import { LedgerStore } from "./LedgerStore.js"

/** Grants one read of the sweep takes at most. */
export const MAX_GRANT_EXPIRY_BATCH = 1_000

/** How often the grant expiry sweep looks and how many grants it reads at once. */
export interface GrantExpiryConfig {
  /** The longest the loop sleeps; it wakes sooner at a known expiry. Default one minute. */
  readonly sweepIntervalMs: number
  /** 1..MAX_GRANT_EXPIRY_BATCH. */
  readonly batchSize: number
}

/** One minute, batches of 1,000. */
export const defaultGrantExpiryConfig: GrantExpiryConfig = { sweepIntervalMs: MINUTE_MS, batchSize: 1_000 }

/** The operations of the grant expiry sweep. */
export interface GrantExpiryShape {
  /** Expires every grant due now; answers how many were expired. */
  readonly sweep: Effect.Effect<number, StoreError>
  /** The soonest expiry still to come, or undefined. */
  readonly nextSweepAt: Effect.Effect<number | undefined, StoreError>
  /** Sweeps at every expiry (and at least once per interval), forever. */
  readonly run: Effect.Effect<never, StoreError>
}

/** The sweep that expires bonus grants at their `expiresAt`. */
export class GrantExpiry extends Context.Tag("@frank/core/GrantExpiry")<GrantExpiry, GrantExpiryShape>() {
  /** The grant expiry sweep with this batch configuration. */
  static readonly layer = (config: GrantExpiryConfig = defaultGrantExpiryConfig) =>
    Layer.effect(
      GrantExpiry,
      Effect.gen(function* () {
        if (!Number.isInteger(config.batchSize) || config.batchSize < 1 || config.batchSize > MAX_GRANT_EXPIRY_BATCH)
          return yield* Effect.dieMessage(`grant expiry: batchSize must be an integer in 1..${MAX_GRANT_EXPIRY_BATCH}`)
        if (!Number.isSafeInteger(config.sweepIntervalMs) || config.sweepIntervalMs < 1)
          return yield* Effect.dieMessage("grant expiry: sweepIntervalMs must be a positive integer")
        const store = yield* LedgerStore
        const ledger = yield* Ledger

        // A rule refusal cannot happen for an expiry (it only takes what the grant holds); if it
        // did, it is a bug, not a reason to stop the sweep for every other partner.
        const expireOne = (partnerId: Parameters<typeof ledger.expireGrant>[0], grantId: string) =>
          Effect.catchIf(
            Effect.map(ledger.expireGrant(partnerId, grantId), (r) => (r.replayed ? 0 : 1)),
            (e): e is LedgerError => e._tag !== "StoreError",
            (e) => Effect.as(Effect.logError("grant expiry refused", e), 0)
          )

        const sweep: GrantExpiryShape["sweep"] = Effect.gen(function* () {
          let expired = 0
          for (;;) {
            const now = yield* Clock.currentTimeMillis
            const due = yield* store.dueGrants(now, config.batchSize)
            for (const d of due) expired += yield* expireOne(d.partnerId, d.grantId)
            if (due.length < config.batchSize) break
            yield* Effect.yieldNow()
          }
          if (expired > 0) yield* Effect.logInfo("expired bonus grants").pipe(Effect.annotateLogs({ expired }))
          return expired
        })

        const run: GrantExpiryShape["run"] = Effect.forever(
          Effect.gen(function* () {
            yield* sweep
            const now = yield* Clock.currentTimeMillis
            const next = yield* store.nextGrantExpiry
            // A grant still due right after a sweep could not be expired (logged): wait, do not spin.
            const wait =
              next === undefined
                ? config.sweepIntervalMs
                : Math.min(Math.max(next - now, 1_000), config.sweepIntervalMs)
            yield* Effect.sleep(Duration.millis(wait))
          })
        )

        return { sweep, nextSweepAt: store.nextGrantExpiry, run }
      })
    )
}

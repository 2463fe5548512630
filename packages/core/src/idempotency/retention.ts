/**
 * Retention of stored answers: kept at least 24 hours (Stripe's promise, which clients retry
 * within), then deleted in bounded batches so one sweep never holds a long transaction.
 */
import { Clock, Effect } from "effect"
import type { StoreError } from "../StoreError.js"
import { IdempotencyStore } from "./IdempotencyStore.js"

/** How long a stored answer is kept at least: 24 hours. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000

/** Rows deleted per statement by the sweep. */
export const IDEMPOTENCY_SWEEP_BATCH = 1000

/**
 * Deletes the answers older than `retentionMs`, batch after batch until a batch comes back short
 * (at most `maxBatches`); answers how many were deleted.
 */
export const sweepExpiredAnswers = (
  options: { readonly retentionMs?: number; readonly batch?: number; readonly maxBatches?: number } = {}
): Effect.Effect<number, StoreError, IdempotencyStore> =>
  Effect.gen(function* () {
    const store = yield* IdempotencyStore
    const batch = options.batch ?? IDEMPOTENCY_SWEEP_BATCH
    const before = (yield* Clock.currentTimeMillis) - Math.max(options.retentionMs ?? 0, IDEMPOTENCY_RETENTION_MS)
    let total = 0
    for (let i = 0; i < (options.maxBatches ?? 100); i++) {
      const deleted = yield* store.deleteExpired(before, batch)
      total += deleted
      if (deleted < batch) break
    }
    return total
  })

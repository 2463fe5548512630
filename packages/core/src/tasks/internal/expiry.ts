/**
 * Expiry of unfinished tasks: the store names the tasks at or past their `expiresAt`, and each
 * is expired through the task store's `update` like a report would be: the row is locked, the
 * state machine decides again under the lock (a task that settled meanwhile is left alone), and
 * the failure, the refund and the events commit in one transaction. Confirm and sweep therefore
 * settle a task exactly once, whichever comes first.
 */
import { Clock, Effect, Either } from "effect"
import type { OutboxShape } from "../../events/Outbox.js"
import type { LedgerError } from "../../ledger/LedgerError.js"
import type { StoreError } from "../../StoreError.js"
import type { Task } from "../Task.js"
import type { TaskObserverShape } from "../TaskObserver.js"
import { expiryTransition } from "../TaskState.js"
import type { TaskChange, TaskRef, TaskStoreShape } from "../TaskStore.js"
import type { ExpiredBatch } from "../Tasks.js"

export const makeExpiry = (
  store: TaskStoreShape,
  outbox: OutboxShape,
  settle: (change: TaskChange, previous: Task) => Effect.Effect<void, LedgerError | StoreError>,
  observe: (f: (o: TaskObserverShape) => Effect.Effect<void>) => Effect.Effect<void>
) => {
  /** True when this call expired the task. */
  const expireOne = (ref: TaskRef, now: number) =>
    Effect.map(
      store.update(
        ref.partnerId,
        ref.id,
        (current) => {
          const t = expiryTransition(current, now)
          return t._tag === "Moved" ? { task: t.task } : undefined
        },
        settle
      ),
      (updated) => updated?.changed === true
    )

  const expireDue = (limit: number, concurrency = 1): Effect.Effect<ExpiredBatch, StoreError> =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const due = yield* store.expiring(now, limit)
      const outcomes = yield* Effect.forEach(due, (ref) => Effect.either(expireOne(ref, now)), { concurrency })
      let expired = 0
      for (const [i, outcome] of outcomes.entries()) {
        if (Either.isRight(outcome)) {
          if (outcome.right) expired++
        } else
          yield* Effect.logError("task expiry failed; the next sweep tries again", outcome.left).pipe(
            Effect.annotateLogs({ taskId: due[i]!.id, partnerId: due[i]!.partnerId })
          )
      }
      if (expired > 0) {
        // The failures' events are committed: let the delivery worker take them.
        yield* outbox.wake
        yield* observe((o) => o.tasksExpired(expired))
      }
      return { due: due.length, expired }
    })

  return { expireDue, nextExpiryAt: store.nextExpiry }
}

/**
 * The ledger movements and events of a task change, run inside the change's transaction:
 * - succeeded: `ledger.confirm` of the actual cost (its `billing.settled`) and `task.succeeded`;
 * - failed: `task.failed`, `ledger.refund` (its `billing.refunded`) and `task.refunded`; a task
 *   that expired refunds through the same path, with the reason `expired` (row kind
 *   `task_hold_expired`), so whatever the ledger does on a refund it does on an expiry too.
 * A change of a task already terminal (a late report being recorded) moves nothing.
 */
import { Effect } from "effect"
import type { OutboxShape } from "../../events/Outbox.js"
import type { LedgerShape } from "../../ledger/Ledger.js"
import { isTerminal, type Task } from "../Task.js"
import { isExpired } from "../TaskState.js"
import type { TaskChange } from "../TaskStore.js"
import { failedEvent, refundedEvent, succeededEvent } from "./taskEvents.js"

export const makeSettle =
  (ledger: LedgerShape, outbox: OutboxShape, unitPriceOf: (task: Task) => number | undefined) =>
  (change: TaskChange, previous: Task) =>
    Effect.gen(function* () {
      if (isTerminal(previous.status)) return
      const task = change.task
      const held = task.reservedMinor > 0
      if (task.status === "succeeded") {
        if (held)
          yield* ledger.confirm(task.partnerId, {
            taskId: task.id,
            amountMinor: task.costMinor ?? 0,
            unitPriceMicros: unitPriceOf(task)
          })
        yield* outbox.emit(task.partnerId, succeededEvent(task))
      } else if (task.status === "failed") {
        yield* outbox.emit(task.partnerId, failedEvent(task))
        if (held) {
          const refund = yield* ledger.refund(task.partnerId, {
            taskId: task.id,
            note: task.failure?.code,
            reason: isExpired(task) ? "expired" : "failed"
          })
          yield* outbox.emit(task.partnerId, refundedEvent(task, refund))
        }
      }
    })

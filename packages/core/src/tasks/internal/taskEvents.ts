/**
 * Which webhook events a task's terminal transition causes (spec "Event types", docs/contract.md §5
 * "event data": task.* `{taskId, status, ...}`). Pure: the task service writes what this returns
 * in the transition's own transaction, next to the ledger's billing.settled / billing.refunded.
 *
 * Ids are derived from the task and its status (sourceId `taskId:status`), so a business event
 * emitted again keeps its eventId. Each is emitted only in its terminal status, which `data.status`
 * names (the schemas in events/EventData.ts).
 */
import type { HoldResult } from "../../ledger/rules.js"
import { minorToFranks } from "../../internal/money.js"
import type { EventDraft } from "../../events/Event.js"
import type { Task } from "../Task.js"

const head = (task: Task) => ({
  taskId: task.id,
  modelId: task.modelId,
  operation: task.operation
})

/** `task.succeeded` with the charge and where the output is. */
export const succeededEvent = (task: Task): EventDraft => ({
  type: "task.succeeded",
  sourceId: `${task.id}:${task.status}`,
  data: {
    ...head(task),
    status: "succeeded",
    costFranks: minorToFranks(task.costMinor ?? 0),
    reservedFranks: minorToFranks(task.reservedMinor),
    resultUrl: task.result?.url ?? null,
    mimeType: task.result?.mimeType ?? null
  }
})

/** `task.failed` with the reason. */
export const failedEvent = (task: Task): EventDraft => ({
  type: "task.failed",
  sourceId: `${task.id}:${task.status}`,
  data: {
    ...head(task),
    status: "failed",
    failureCode: task.failure?.code ?? null,
    failureMessage: task.failure?.message ?? null
  }
})

/** `task.refunded` after the reservation of a failed task went back to available. */
export const refundedEvent = (task: Task, refund: HoldResult): EventDraft => ({
  type: "task.refunded",
  sourceId: `${task.id}:${task.status}`,
  data: {
    ...head(task),
    status: "failed",
    transactionId: refund.hold.settlementEntryId,
    amountFranks: minorToFranks(refund.hold.releasedMinor)
  }
})

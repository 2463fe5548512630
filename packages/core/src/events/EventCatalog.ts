/**
 * The event catalog (`GET /v1/webhooks/event-types`): per event type, when it is emitted, the JSON
 * Schema of its `data` (derived from the schema the outbox encodes with, EventData.ts) and an
 * example `data`. The examples are typed by the same schemas, and a test decodes each one and
 * every event the engine emits against the published JSON Schema.
 */
import { JSONSchema, type Schema } from "effect"
import { type EventDataOf, EventData, encodeEventData, type TypedEventData } from "./EventData.js"
import { allEventTypes, type EventType } from "./EventType.js"

export interface EventCatalogEntry {
  readonly type: EventType
  readonly description: string
  /** JSON Schema (draft-07) of the event's `data`. */
  readonly schema: Readonly<Record<string, unknown>>
  readonly example: unknown
}

/** Spec "Event types", and docs/contract.md §5 for the types the spec does not list. */
const descriptions: { readonly [T in EventType]: string } = {
  "billing.settled": "A charge is confirmed; carries the final amount.",
  "billing.refunded":
    "A task reservation is refunded after the task failed, or after it expired unsettled (the task then failed with TASK_EXPIRED).",
  "billing.topup.confirmed": "A top-up is credited.",
  "billing.low_balance":
    "Available balance fell below the threshold (1,000 ₣, the balance's `isLow`); at most once per 24 h.",
  "billing.bonus_expired":
    "An expiring bonus credit (a grant) reached its `expiresAt`: its unspent, unreserved remainder was clawed back (a `bonus_reversal` row of kind `bonus_expired`); sent again when a hold gives back money it took from the grant.",
  "billing.balance_alert":
    "Available balance crossed one of the partner's alert thresholds (`/v1/billing/alerts`): below it (`triggered`) or back to it or above (`resolved`). One event per crossing.",
  "billing.invoice.status_changed": "A legal invoice changed status or was paid.",
  "task.succeeded": "A generation task succeeded.",
  "task.failed":
    "A generation task failed. `failureCode` TASK_EXPIRED: it was still unfinished when its reservation lapsed (`expiresAt` of the task); a provider report arriving later settles nothing.",
  "task.refunded": "A failed task's reservation went back to the available balance.",
  "webhook.test": "Sent on demand to exactly one endpoint by `POST /v1/webhooks/endpoints/{id}/test`.",
  "webhook.endpoint.disabled":
    "An endpoint was paused automatically: no successful delivery for days and enough dead-lettered ones (see the endpoint's `failingSince`). Sent to the partner's other endpoints subscribed to it."
}

const task = {
  taskId: "6f1c2b7e-4d1a-4c39-9a57-2f0e8d5b1c44",
  modelId: "gpt-image-1",
  operation: "text-to-image"
}

const examples: { readonly [T in EventType]: EventDataOf<T> } = {
  "billing.settled": {
    transactionId: "0b6d3f5e-8a47-4d2b-b1b9-3c1f7e9a2d60",
    taskId: task.taskId,
    amountFranks: 123.45
  },
  "billing.refunded": {
    transactionId: "4e2a9c1d-7b3f-4f60-8d15-a9c3e2b7f018",
    taskId: task.taskId,
    amountFranks: 200
  },
  "billing.topup.confirmed": {
    transactionId: "c7d1e0f2-3a4b-4c5d-9e6f-708192a3b4c5",
    paymentId: "5a0f8c2e-1d3b-4e7a-9c6d-2b8e4f1a7c93",
    amountFranks: 5000
  },
  "billing.low_balance": { availableFranks: 900, thresholdFranks: 1000 },
  "billing.bonus_expired": {
    grantId: "2f7c9a1e-5b3d-4e8f-a0c6-9d1b7e3f5a28",
    amountFranks: 150,
    expiredAt: "2026-12-01T00:00:00.000Z"
  },
  "billing.balance_alert": {
    alertId: "8b4e2d6f-1a9c-4f3e-b7d5-0c2a8e6f4b19",
    thresholdFranks: 5000,
    state: "triggered",
    availableFranks: 4870.5
  },
  "billing.invoice.status_changed": {
    invoiceId: "9d3e7a1b-2c4f-4b8e-a6d0-5f1c3e9b7a24",
    status: "paid",
    previousStatus: "issued",
    amountRub: 15000
  },
  "task.succeeded": {
    ...task,
    status: "succeeded",
    costFranks: 6,
    reservedFranks: 6,
    resultUrl: "https://frank.example/v1/tasks/6f1c2b7e-4d1a-4c39-9a57-2f0e8d5b1c44/result",
    mimeType: "image/png"
  },
  "task.failed": {
    ...task,
    status: "failed",
    failureCode: "SANDBOX_FAILED",
    failureMessage: "the provider could not finish the task"
  },
  "task.refunded": {
    ...task,
    status: "failed",
    transactionId: "4e2a9c1d-7b3f-4f60-8d15-a9c3e2b7f018",
    amountFranks: 6
  },
  "webhook.test": { endpointId: "1c9e4b7a-3f2d-4a6e-8b5c-0d7f1e3a9b62" },
  "webhook.endpoint.disabled": {
    endpointId: "1c9e4b7a-3f2d-4a6e-8b5c-0d7f1e3a9b62",
    url: "https://hooks.partner.example/frank",
    failingSince: "2026-11-01T10:08:36.000Z"
  }
}

const entry = <T extends EventType>(type: T): EventCatalogEntry => ({
  type,
  description: descriptions[type],
  schema: JSONSchema.make(EventData[type] as Schema.Schema.AnyNoContext) as unknown as Readonly<
    Record<string, unknown>
  >,
  // As sent: encoded by the type's schema, like every emitted event.
  example: encodeEventData({ type, data: examples[type] } as TypedEventData)
})

/** Every event type, in the order of EventType. Built once: the schemas never change at run time. */
export const eventCatalog: ReadonlyArray<EventCatalogEntry> = allEventTypes.map(entry)

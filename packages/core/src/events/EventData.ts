/**
 * The `data` of every event type as an Effect Schema (docs/contract.md §5 "event data"): the
 * outbox encodes each event's data with its type's schema, and the event catalog
 * (`GET /v1/webhooks/event-types`) derives its JSON Schemas from the same ones, so what is sent
 * and what is documented cannot drift apart.
 *
 * Domain-free like the rest of events/: the statuses below repeat the domains' own literals, and
 * the compiler holds them together (each domain's event constructor must produce this type).
 */
import { Schema } from "effect"
import type { EventType } from "./EventType.js"

const Franks = Schema.Number.annotations({ description: "Franks (₣), at most two decimals" })
const Timestamp = Schema.String.annotations({ description: "ISO 8601 timestamp" })
/** The fields every task event starts with; `status` is the terminal status it reports. */
const taskHead = <S extends "succeeded" | "failed">(status: S) => ({
  taskId: Schema.String,
  status: Schema.Literal(status),
  modelId: Schema.String.annotations({ description: "The model the task ran on" }),
  operation: Schema.String.annotations({ description: "The model's operation, as priced in the catalog" })
})
const InvoiceStatus = Schema.Literal("issued", "paid", "canceled", "expired")

export const BillingSettledData = Schema.Struct({
  transactionId: Schema.String.annotations({ description: "The ledger transaction of the charge" }),
  taskId: Schema.String,
  amountFranks: Franks.annotations({ description: "The final amount charged, ₣" })
}).annotations({ identifier: "BillingSettledData" })

export const BillingRefundedData = Schema.Struct({
  transactionId: Schema.String.annotations({ description: "The ledger transaction of the refund" }),
  taskId: Schema.String,
  amountFranks: Franks.annotations({ description: "The reservation given back, ₣" })
}).annotations({ identifier: "BillingRefundedData" })

export const TopUpConfirmedData = Schema.Struct({
  transactionId: Schema.String.annotations({ description: "The ledger transaction of the credit" }),
  paymentId: Schema.NullOr(Schema.String).annotations({ description: "The top-up payment credited" }),
  amountFranks: Franks.annotations({ description: "The amount credited, ₣ (1 RUB = 1 ₣)" })
}).annotations({ identifier: "BillingTopUpConfirmedData" })

export const LowBalanceData = Schema.Struct({
  availableFranks: Franks.annotations({ description: "Available balance at the movement that lowered it, ₣" }),
  thresholdFranks: Franks.annotations({ description: "The low-balance threshold, ₣ (the balance's `isLow`)" })
}).annotations({ identifier: "BillingLowBalanceData" })

export const BonusExpiredData = Schema.Struct({
  grantId: Schema.String.annotations({ description: "The expired grant (the id of the bonus credit)" }),
  amountFranks: Franks.annotations({
    description: "The grant's money clawed back, ₣: its unspent remainder at expiry, or what a hold gave back later"
  }),
  expiredAt: Timestamp.annotations({ description: "When the grant expired" })
}).annotations({ identifier: "BillingBonusExpiredData" })

export const BalanceAlertData = Schema.Struct({
  alertId: Schema.String.annotations({ description: "The partner's balance alert" }),
  thresholdFranks: Franks.annotations({ description: "The alert's threshold, ₣" }),
  state: Schema.Literal("triggered", "resolved").annotations({
    description: "`triggered`: available fell below the threshold; `resolved`: it rose to the threshold or above"
  }),
  availableFranks: Franks.annotations({ description: "Available balance after the movement that crossed it, ₣" })
}).annotations({ identifier: "BillingBalanceAlertData" })

export const InvoiceStatusChangedData = Schema.Struct({
  invoiceId: Schema.String,
  status: InvoiceStatus,
  previousStatus: InvoiceStatus,
  amountRub: Schema.Int.annotations({ description: "The invoice amount, RUB" })
}).annotations({ identifier: "BillingInvoiceStatusChangedData" })

export const TaskSucceededData = Schema.Struct({
  ...taskHead("succeeded"),
  costFranks: Franks.annotations({ description: "What the task cost, ₣" }),
  reservedFranks: Franks.annotations({ description: "What its launch reserved, ₣" }),
  resultUrl: Schema.NullOr(Schema.String).annotations({ description: "Where the output is" }),
  mimeType: Schema.NullOr(Schema.String)
}).annotations({ identifier: "TaskSucceededData" })

export const TaskFailedData = Schema.Struct({
  ...taskHead("failed"),
  failureCode: Schema.NullOr(Schema.String).annotations({
    description: "The provider's code, or TASK_EXPIRED when the task's reservation lapsed before it finished"
  }),
  failureMessage: Schema.NullOr(Schema.String)
}).annotations({ identifier: "TaskFailedData" })

export const TaskRefundedData = Schema.Struct({
  ...taskHead("failed"),
  transactionId: Schema.NullOr(Schema.String).annotations({ description: "The ledger transaction of the refund" }),
  amountFranks: Franks.annotations({ description: "The reservation given back, ₣" })
}).annotations({ identifier: "TaskRefundedData" })

export const WebhookTestData = Schema.Struct({
  endpointId: Schema.String.annotations({ description: "The endpoint the test was sent to" }),
  exampleOf: Schema.optional(Schema.String).annotations({
    description:
      "Present when the test carries the catalog's example of this event type (the cabinet's \"send this example\")"
  }),
  example: Schema.optional(Schema.Unknown).annotations({
    description: "That example's `data`, as the catalog shows it; a test, never a real event"
  })
}).annotations({ identifier: "WebhookTestData" })

export const EndpointDisabledData = Schema.Struct({
  endpointId: Schema.String.annotations({ description: "The endpoint that was paused" }),
  url: Schema.String,
  failingSince: Timestamp.annotations({ description: "Its first dead-lettered delivery after its last success" })
}).annotations({ identifier: "WebhookEndpointDisabledData" })

/** One schema per event type: what `data` carries. */
export const EventData = {
  "billing.settled": BillingSettledData,
  "billing.refunded": BillingRefundedData,
  "billing.topup.confirmed": TopUpConfirmedData,
  "billing.low_balance": LowBalanceData,
  "billing.bonus_expired": BonusExpiredData,
  "billing.balance_alert": BalanceAlertData,
  "billing.invoice.status_changed": InvoiceStatusChangedData,
  "task.succeeded": TaskSucceededData,
  "task.failed": TaskFailedData,
  "task.refunded": TaskRefundedData,
  "webhook.test": WebhookTestData,
  "webhook.endpoint.disabled": EndpointDisabledData
} as const satisfies { readonly [T in EventType]: Schema.Schema.AnyNoContext }

export type EventDataOf<T extends EventType> = (typeof EventData)[T]["Type"]

/** An event's data with its type, as emitters build it. */
export type TypedEventData = {
  readonly [T in EventType]: { readonly type: T; readonly data: EventDataOf<T> }
}[EventType]

/**
 * The data as it goes on the wire, encoded by its type's schema (fields the schema does not
 * declare are dropped). Throws when the data does not fit: a bug in the emitter, which the
 * outbox lets die rather than send an event its catalog entry does not describe.
 */
export const encodeEventData = (event: TypedEventData): unknown =>
  Schema.encodeUnknownSync(EventData[event.type] as Schema.Schema.AnyNoContext)(event.data)

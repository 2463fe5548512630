/**
 * The event catalog of the partner API (spec "Events").
 */
import { Schema } from "effect"

/** The webhook event types (spec "Events"), as a schema literal. */
export const EventType = Schema.Literal(
  "billing.settled",
  "billing.refunded",
  "billing.topup.confirmed",
  "billing.low_balance",
  "billing.bonus_expired",
  "billing.balance_alert",
  "billing.invoice.status_changed",
  "task.succeeded",
  "task.failed",
  "task.refunded",
  "webhook.test",
  "webhook.endpoint.disabled"
)
export type EventType = typeof EventType.Type

/** Every webhook event type, in catalog order. */
export const allEventTypes: ReadonlyArray<EventType> = EventType.literals

/** Events whose id is derived from their source, so a re-emission keeps the same id. */
export const isSourceDerived = (type: EventType): boolean => type !== "billing.low_balance" && type !== "webhook.test"

/**
 * The event catalog of the partner API (spec "Events").
 */
import { Schema } from "effect"

export const EventType = Schema.Literal(
  "billing.settled",
  "billing.refunded",
  "billing.topup.confirmed",
  "billing.low_balance",
  "billing.invoice.status_changed",
  "task.succeeded",
  "task.failed",
  "task.refunded",
  "webhook.test",
  "webhook.endpoint.disabled"
)
export type EventType = typeof EventType.Type

export const allEventTypes: ReadonlyArray<EventType> = EventType.literals

/** Events whose id is derived from their source, so a re-emission keeps the same id. */
export const isSourceDerived = (type: EventType): boolean => type !== "billing.low_balance" && type !== "webhook.test"

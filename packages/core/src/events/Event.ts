/**
 * Webhook events: the envelope of spec "Body envelope" and the ids of docs/contract.md §5. An event
 * is serialized once, when it is written to the outbox; those bytes are what every attempt sends
 * and signs, so the signed body never changes between attempts or replays.
 */
import { derivedId } from "../internal/ids.js"
import type { EndpointId, PartnerId } from "../EntityIds.js"
import type { TypedEventData } from "./EventData.js"
import type { EventType } from "./EventType.js"
import { iso } from "../isoTime.js"

export const SCHEMA_VERSION = 1

/**
 * An event a business change asks to emit, before it has an id and a time: its type and the data
 * that type's schema describes (EventData.ts).
 */
export type EventDraft = TypedEventData & {
  /**
   * For source-derived events: the transaction, task or invoice (+ status) it comes from. The id
   * is then derived from it, so emitting the same business event twice yields one event.
   */
  readonly sourceId?: string | undefined
}

/** A webhook event: its id, type, partner, time and data, as delivered in the envelope. */
export interface WebhookEvent {
  readonly partnerId: PartnerId
  readonly id: string
  readonly type: EventType
  readonly occurredAt: number
  /** The envelope exactly as sent (UTF-8 JSON). */
  readonly payload: string
  /** W3C `traceparent` of the span that wrote the event, when tracing recorded one; attempts link to it. */
  readonly traceParent?: string | undefined
}

/** Where an event goes: every active endpoint subscribed to its type, or exactly one endpoint (webhook.test). */
export type EventTarget =
  | { readonly _tag: "Subscribers" }
  | { readonly _tag: "Endpoint"; readonly endpointId: EndpointId }
export const toSubscribers: EventTarget = { _tag: "Subscribers" }

/** UUID v5 of `partnerId:eventType:sourceId` (docs/contract.md §5 "event ids"). */
export const sourceEventId = (partnerId: PartnerId, type: EventType, sourceId: string): string =>
  derivedId(`${partnerId}:${type}:${sourceId}`)

/** `data` as encoded by its type's schema (`encodeEventData`). */
export const encodeEnvelope = (event: Omit<WebhookEvent, "payload">, data: unknown): string =>
  JSON.stringify({
    eventId: event.id,
    eventType: event.type,
    occurredAt: iso(event.occurredAt),
    partnerId: event.partnerId,
    schemaVersion: SCHEMA_VERSION,
    data
  })

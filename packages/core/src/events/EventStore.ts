/**
 * The storage port of the outbox: where events are written, in the business change's own
 * transaction. The webhook stores implement it (writing an event also fans it out into one pending
 * delivery per target endpoint), so a store layer provides this tag beside its own.
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../StoreError.js"
import type { EventTarget, WebhookEvent } from "./Event.js"

/** The operations of the event store port. */
export interface EventStoreShape {
  /**
   * Writes the event (once per id: a second append of the same id changes nothing) and one
   * pending delivery, due now, per target endpoint. Joins an enclosing transaction, so the event
   * commits or rolls back with the business change that caused it. Answers how many deliveries
   * were created.
   */
  readonly appendEvent: (event: WebhookEvent, target: EventTarget, now: number) => Effect.Effect<number, StoreError>
  /**
   * True while the calling fiber is inside a transaction that is still open (a caller's, which
   * the store's writes join): what it appended is invisible to workers until that commits, so
   * waking them now would only send them looking for nothing. Stores whose writes are visible at
   * once answer false.
   */
  readonly insideOpenTransaction: Effect.Effect<boolean>
}

/** Port: appends webhook events and fans them out into deliveries. */
export class EventStore extends Context.Tag("@frank/core/EventStore")<EventStore, EventStoreShape>() {}

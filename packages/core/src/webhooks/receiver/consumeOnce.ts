/**
 * The receiver's entry point for deduplication: run the business action for a verified event
 * unless its eventId was already processed. Answer 2xx for both results; let any failure
 * propagate to a non-2xx answer so Frank delivers the event again.
 */
import { Effect } from "effect"
import type { StoreError } from "../../StoreError.js"
import type { ConsumeResult } from "./ConsumeResult.js"
import { ProcessedEvents } from "./ProcessedEvents.js"

/** Runs the action once per event id (with ProcessedEvents), else answers Duplicate. */
export const consumeOnce = <A, E, R>(
  eventId: string,
  action: Effect.Effect<A, E, R>
): Effect.Effect<ConsumeResult<A>, E | StoreError, R | ProcessedEvents> =>
  Effect.flatMap(ProcessedEvents, (events) => events.runOnce(eventId, action))

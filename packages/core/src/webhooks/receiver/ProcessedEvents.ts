/**
 * The receiver's record of processed event ids (spec "Signature verification (receiver)" step 4:
 * store the eventId atomically with the event; a repeat is answered 2xx without repeating the
 * business action; if storing fails, do not answer 2xx).
 *
 * The port takes the action itself rather than offering separate "seen?" and "mark" calls: a
 * check-then-mark pair leaves a window where two concurrent deliveries both pass the check, and a
 * mark written apart from the action can be lost after the action (repeated later) or kept after
 * a failed action (the event silently dropped). Given the action, an SQL store runs it and the
 * marker insert in one transaction, and a memory store runs it under a per-event lock.
 */
import { Context, type Effect, type Option } from "effect"
import type { StoreError } from "../../StoreError.js"
import type { ConsumeResult } from "./ConsumeResult.js"

/** The operations of the processed events port. */
export interface ProcessedEventsShape {
  /**
   * Runs `action` and records `eventId` as one unit, unless `eventId` is already recorded, in
   * which case `action` does not run and the result is `Duplicate`.
   *
   * - If `action` fails (or dies, or is interrupted), nothing is recorded and its error comes
   *   back unchanged, so a later delivery runs it again.
   * - If recording fails, the error is a StoreError and the action's own writes to the same
   *   store do not persist either.
   * - Concurrent calls with one eventId run `action` at most once successfully: the others wait
   *   and then see `Duplicate`, or run it themselves if the first attempt failed.
   */
  readonly runOnce: <A, E, R>(
    eventId: string,
    action: Effect.Effect<A, E, R>
  ) => Effect.Effect<ConsumeResult<A>, E | StoreError, R>
  /**
   * When `eventId` was recorded (epoch ms from Effect's Clock), if it was. For the spec's manual
   * check before replaying an `uncertain` delivery: did the receiver already process it?
   */
  readonly processedAt: (eventId: string) => Effect.Effect<Option.Option<number>, StoreError>
}

/** Port: remembers which event ids a receiver has processed (SQL in adapters, memory for tests). */
export class ProcessedEvents extends Context.Tag("@frank/core/ProcessedEvents")<
  ProcessedEvents,
  ProcessedEventsShape
>() {}

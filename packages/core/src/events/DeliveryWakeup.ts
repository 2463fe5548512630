/**
 * Wakes the delivery worker when new work may exist (an event committed, a replay, a free slot),
 * so a new event is attempted at once instead of at the next poll. A sliding queue of one keeps
 * a signal that arrives while the worker is busy, so none is lost and none piles up.
 *
 * In one process this is enough. Across host instances on one Postgres, the SQL store also sends
 * NOTIFY in the event's transaction and the host forwards notifications here.
 */
import { Context, Effect, Layer, Queue } from "effect"

export interface DeliveryWakeupShape {
  readonly signal: Effect.Effect<void>
  /** Waits for a signal sent since the last `await`. */
  readonly await: Effect.Effect<void>
}

/** Wakes the delivery worker when new events are committed (in this process or, through the announcer, in others). */
export class DeliveryWakeup extends Context.Tag("@frank/core/DeliveryWakeup")<DeliveryWakeup, DeliveryWakeupShape>() {
  static readonly layer = Layer.effect(
    DeliveryWakeup,
    Effect.map(Queue.sliding<void>(1), (queue) => ({
      signal: Effect.asVoid(Queue.offer(queue, undefined)),
      await: Queue.take(queue)
    }))
  )
}

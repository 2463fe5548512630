/**
 * Processed event ids in one process's memory: for tests, simulations and single-instance
 * receivers whose business action also lives in memory. The record does not survive a restart
 * and is not shared between instances, and it grows by one entry per event; a production
 * receiver uses SqlProcessedEvents on its own database.
 *
 * Atomicity here means: the id is recorded in the same uninterruptible step that sees the action
 * succeed, under a per-event lock, so concurrent deliveries of one event cannot both run it and
 * a failed or interrupted action leaves no record. (Memory cannot undo what the action itself
 * did before failing; an SQL action inside SqlProcessedEvents is rolled back.)
 */
import { WebhookReceiver } from "@frank/core"
import { Clock, Effect, Layer, Option } from "effect"
import { makeKeyedLock } from "./internal/keyedLock.js"

/** `ProcessedEvents` in memory. */
export const layer: Layer.Layer<WebhookReceiver.ProcessedEvents> = Layer.sync(WebhookReceiver.ProcessedEvents, () => {
  const recorded = new Map<string, number>()
  const lock = makeKeyedLock()
  return {
    runOnce: (eventId, action) =>
      lock.withLock(eventId)(
        Effect.uninterruptibleMask((restore) =>
          recorded.has(eventId)
            ? Effect.succeed(WebhookReceiver.ConsumeResult.duplicate)
            : restore(action).pipe(
                Effect.flatMap((value) =>
                  Effect.map(Clock.currentTimeMillis, (now) => {
                    recorded.set(eventId, now)
                    return WebhookReceiver.ConsumeResult.processed(value)
                  })
                )
              )
        )
      ),
    processedAt: (eventId) => Effect.sync(() => Option.fromNullable(recorded.get(eventId)))
  }
})

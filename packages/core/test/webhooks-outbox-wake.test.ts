/**
 * The outbox's `wake`, called by every service after its commit: it signals this process's
 * worker, and announces to other processes only when an EventAnnouncer is provided.
 */
import { describe, expect, it } from "@effect/vitest"
import { Events, Ids } from "@frank/core"
import { MemoryWebhookStore } from "@frank/core/testing"
import { Effect, Layer, Option, Ref } from "effect"

const outboxWith = (announcer: Layer.Layer<Events.EventAnnouncer> | undefined) =>
  Events.Outbox.layerWithWakeup.pipe(
    Layer.provide(Layer.mergeAll(MemoryWebhookStore.layer, Ids.Ids.layer, announcer ?? Layer.empty))
  )

/** Whether the worker's wake-up holds a signal now (taken, so the next check starts empty). */
const signalled = Effect.flatMap(Events.DeliveryWakeup, (w) =>
  Effect.map(Effect.timeoutOption(w.await, "10 millis"), Option.isSome)
)

describe("Outbox.wake", () => {
  it.live("signals the worker and announces once per call when an announcer is provided", () =>
    Effect.gen(function* () {
      const announced = yield* Ref.make(0)
      const counting = Layer.succeed(Events.EventAnnouncer, { announce: Ref.update(announced, (n) => n + 1) })
      yield* Effect.gen(function* () {
        const outbox = yield* Events.Outbox
        expect(yield* signalled).toBe(false)
        yield* outbox.wake
        expect(yield* signalled).toBe(true)
        yield* outbox.wake
        expect(yield* Ref.get(announced)).toBe(2)
      }).pipe(Effect.provide(outboxWith(counting)))
    })
  )

  it.live("only signals the worker without an announcer", () =>
    Effect.gen(function* () {
      const outbox = yield* Events.Outbox
      yield* outbox.wake
      expect(yield* signalled).toBe(true)
    }).pipe(Effect.provide(outboxWith(undefined)))
  )
})

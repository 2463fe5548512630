/**
 * An outbox whose event store only records what is emitted, for ledger suites that check which
 * events a movement wrote (and how many) on any ledger store.
 */
import { Events } from "@frank/core"
import { Effect, Layer } from "effect"
import { EventStore } from "@frank/core/stores"

/** Every event emitted through `recordingOutbox`, in emission order. */
export const recordedEvents: Array<Events.WebhookEvent> = []

/** The outbox over a recording event store; needs Ids. */
export const recordingOutbox = Events.Outbox.layerWithWakeup.pipe(
  Layer.provide(
    Layer.succeed(EventStore, {
      appendEvent: (event) =>
        Effect.sync(() => {
          recordedEvents.push(event)
          return 0
        }),
      insideOpenTransaction: Effect.succeed(false)
    })
  )
)

/** The data of the events of one type a partner was sent, as written. */
export const eventsOf = (partnerId: string, type: Events.EventType) =>
  recordedEvents
    .filter((e) => e.partnerId === partnerId && e.type === type)
    .map((e) => (JSON.parse(e.payload) as { data: Record<string, unknown> }).data)

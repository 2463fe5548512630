/**
 * The transactional outbox: business services call `emit` inside the transaction of the change
 * that causes the event, so the event exists exactly when the change does. After the commit they
 * call `wake`, so the worker attempts it at once (and, with an EventAnnouncer, other processes'
 * workers hear of it). Domain-free: ledger, payments, invoices, tasks and webhooks all emit
 * through it without knowing each other.
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import { Ids } from "../internal/ids.js"
import { annotateSpan } from "../internal/spans.js"
import type { StoreError } from "../StoreError.js"
import { DeliveryWakeup } from "./DeliveryWakeup.js"
import { encodeEventData } from "./EventData.js"
import {
  type EventDraft,
  type EventTarget,
  encodeEnvelope,
  sourceEventId,
  toSubscribers,
  type WebhookEvent
} from "./Event.js"
import { EventAnnouncer } from "./EventAnnouncer.js"
import { EventStore } from "./EventStore.js"
import { currentTraceParent } from "./traceParent.js"
import type { PartnerId } from "../EntityIds.js"

export interface EmittedEvent {
  readonly event: WebhookEvent
  readonly deliveries: number
}

export interface OutboxShape {
  /** Writes the event and its deliveries; joins the caller's transaction. */
  readonly emit: (
    partnerId: PartnerId,
    draft: EventDraft,
    target?: EventTarget
  ) => Effect.Effect<EmittedEvent, StoreError>
  /**
   * Call after the transaction committed: wakes this process's worker, and announces to others
   * when an EventAnnouncer is provided. Inside a transaction still open (a caller's, which the
   * engine's writes joined) it does nothing: the events are not visible yet, and whoever commits
   * that transaction calls `wake` after the commit, as the engine's services do.
   */
  readonly wake: Effect.Effect<void>
}

/** The transactional outbox: events recorded with the change that causes them, delivered after commit. */
export class Outbox extends Context.Tag("@frank/core/Outbox")<Outbox, OutboxShape>() {
  static readonly layer = Layer.effect(
    Outbox,
    Effect.gen(function* () {
      const store = yield* EventStore
      const ids = yield* Ids
      const wakeup = yield* DeliveryWakeup
      const announcer = yield* Effect.serviceOption(EventAnnouncer)

      const emit: OutboxShape["emit"] = (partnerId, draft, target = toSubscribers) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const id =
            draft.sourceId === undefined ? yield* ids.next : sourceEventId(partnerId, draft.type, draft.sourceId)
          const head = { partnerId, id, type: draft.type, occurredAt: now }
          // The write's own span is what every attempt of this event links to (traceParent.ts).
          const traceParent = yield* currentTraceParent
          const event: WebhookEvent = { ...head, payload: encodeEnvelope(head, encodeEventData(draft)), traceParent }
          yield* annotateSpan({ "frank.event_id": id })
          // One statement writes the event and fans it out into a delivery per endpoint.
          const deliveries = yield* store.appendEvent(event, target, now).pipe(
            Effect.tap((n) => annotateSpan({ "frank.webhook.deliveries": n })),
            Effect.withSpan("frank.webhook.fan_out", { attributes: { "frank.partner_id": partnerId } })
          )
          return { event, deliveries }
        }).pipe(
          Effect.withSpan("frank.outbox.write", {
            attributes: { "frank.partner_id": partnerId, "frank.event_type": draft.type }
          })
        )

      // This process's worker first: it is the one that can attempt the delivery at once.
      const wakeNow = Option.match(announcer, {
        onNone: () => wakeup.signal,
        onSome: (a) => Effect.zipRight(wakeup.signal, a.announce)
      })
      // A wake before the commit would cost every woken worker a claim that finds nothing, and,
      // with an announcer pausing between NOTIFYs, hold back the one after the commit.
      const wake = Effect.flatMap(store.insideOpenTransaction, (open) => (open ? Effect.void : wakeNow))
      return { emit, wake }
    })
  )

  /** The outbox with its own worker wake-up signal (share it with the DeliveryWorker). Needs EventStore and Ids. */
  static readonly layerWithWakeup = Outbox.layer.pipe(Layer.provideMerge(DeliveryWakeup.layer))
}

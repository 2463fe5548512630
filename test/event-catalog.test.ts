/**
 * The event catalog against what it describes: every event type has an entry whose example
 * decodes with the type's Effect Schema and validates against the published JSON Schema (with
 * Ajv), broken data does not, and every event an engine run emits validates too. The seeded
 * simulation (test/simulation) and the endpoint-health contract check their emitted events the
 * same way, which adds the task, invoice and payment events to these.
 */
import { describe, expect, it } from "@effect/vitest"
import { Events, Ledger, Webhooks } from "@frank/core"
import {
  MemoryLedgerStore,
  MemoryWebhookStore,
  ScriptedReceiver,
  Simulation,
  SimulationEngine,
  testPartner,
  testTask
} from "@frank/core/testing"
import { Context, Effect, Either, Layer, Schema, TestClock } from "effect"
import { dataViolations, eventViolations } from "./support/eventCatalogCheck.js"
import {
  DeliveryLog,
  DeliveryQueue,
  EndpointStore,
  EventStore,
  LedgerStore,
  TariffStore,
  WebhookRetentionStore,
  type WebhookStores
} from "@frank/core/stores"

const T0 = Date.UTC(2026, 10, 1, 10, 0, 0)
const DAY = 86_400_000

const decodeStrict = (type: Events.EventType, data: unknown) =>
  Schema.decodeUnknownEither(Events.EventData[type] as Schema.Schema.AnyNoContext)(data, { onExcessProperty: "error" })

describe("the event catalog", () => {
  it("has one entry per event type, in order, each with a description, a JSON Schema and an example", () => {
    expect(Events.eventCatalog.map((e) => e.type)).toEqual(Events.allEventTypes)
    for (const entry of Events.eventCatalog) {
      expect(entry.description.length, entry.type).toBeGreaterThan(10)
      expect(entry.schema.$schema, entry.type).toBe("http://json-schema.org/draft-07/schema#")
    }
  })

  it("every example decodes with its type's schema and validates against the published JSON Schema", () => {
    for (const entry of Events.eventCatalog) {
      expect(Either.isRight(decodeStrict(entry.type, entry.example)), entry.type).toBe(true)
      expect(dataViolations(entry.type, entry.example)).toEqual([])
    }
  })

  it("data that does not fit is refused by both: a missing field, an extra field, a wrong type", () => {
    for (const entry of Events.eventCatalog) {
      const example = entry.example as Record<string, unknown>
      const [first] = Object.keys(example)
      const { [first as string]: _dropped, ...missing } = example
      const broken = [missing, { ...example, unexpected: 1 }, { ...example, [first as string]: { nested: true } }]
      for (const data of broken) {
        expect(dataViolations(entry.type, data).length, `${entry.type} ${JSON.stringify(data)}`).toBeGreaterThan(0)
        expect(Either.isLeft(decodeStrict(entry.type, data)), entry.type).toBe(true)
      }
    }
  })

  it.effect("every event an engine run emits matches the catalog: billing, test and endpoint-disabled events", () =>
    Effect.gen(function* () {
      const emitted: Array<Events.WebhookEvent> = []
      // The engine's stores, the outbox's one recording every event it is asked to write.
      const Recording = Layer.effectContext(
        Effect.gen(function* () {
          const events = yield* EventStore
          const recording: typeof events = {
            ...events,
            appendEvent: (event, target, now) =>
              Effect.tap(events.appendEvent(event, target, now), () => Effect.sync(() => emitted.push(event)))
          }
          const stores = yield* Effect.context<WebhookStores | LedgerStore | TariffStore>()
          return Context.pick(
            EndpointStore,
            DeliveryQueue,
            DeliveryLog,
            WebhookRetentionStore,
            LedgerStore,
            TariffStore
          )(stores).pipe(Context.add(EventStore, recording))
        })
      ).pipe(Layer.provide(Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore.layer)))
      const run = Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const webhooks = yield* Webhooks.Webhooks
        const ledger = yield* Ledger.Ledger
        const sim = yield* Simulation
        yield* (yield* ScriptedReceiver).script(
          "https://broken.example/hook",
          Array.from({ length: 200 }, () => 503)
        )
        const broken = yield* webhooks.createEndpoint(testPartner("p1"), { url: "https://broken.example/hook" })
        yield* webhooks.createEndpoint(testPartner("p1"), { url: "https://watching.example/hook" })
        yield* ledger.credit(testPartner("p1"), { kind: "topup", amountMinor: 150_000, reference: "pay-1" })
        yield* ledger.reserve(testPartner("p1"), { taskId: testTask("t1"), amountMinor: 60_000 })
        yield* ledger.confirm(testPartner("p1"), { taskId: testTask("t1"), amountMinor: 12_345 })
        yield* ledger.reserve(testPartner("p1"), { taskId: testTask("t2"), amountMinor: 10_000 })
        yield* ledger.refund(testPartner("p1"), { taskId: testTask("t2") })
        yield* Effect.repeatN(webhooks.sendTest(testPartner("p1"), broken.id), 9)
        yield* sim.advance(6 * DAY)
      })
      yield* run.pipe(Effect.provide(SimulationEngine({ stores: Recording })))
      const types = new Set(emitted.map((e) => e.type))
      expect([...types].sort()).toEqual([
        "billing.low_balance",
        "billing.refunded",
        "billing.settled",
        "billing.topup.confirmed",
        "webhook.endpoint.disabled",
        "webhook.test"
      ])
      for (const event of emitted) expect(eventViolations(event.payload), event.type).toEqual([])
    })
  )
})

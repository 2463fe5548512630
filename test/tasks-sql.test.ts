/**
 * Task behaviour only SQL stores have: a settlement is one transaction with the task's new status
 * and its events. When any part fails (here: writing `task.succeeded` to the outbox), the status,
 * the ledger confirm and `billing.settled` all roll back, and the task can still settle later.
 */
import { SqlLedgerStore, SqlTaskStore, SqlWebhookStore, TestDatabase } from "@frank/adapters"
import { Errors, Ledger, Tasks, Webhooks } from "@frank/core"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Ref } from "effect"
import { randomUUID } from "node:crypto"
import { tasksEngine } from "./contract/tasksContract.js"
import { testPartner } from "@frank/core/testing"
import { type EventStoreShape, webhookStoresContext } from "@frank/core/stores"

const engines: Array<[string, () => Layer.Layer<TestDatabase.TestDatabase, unknown>]> = [
  ["PGlite", () => TestDatabase.layerPglite()]
]
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  engines.push(["PostgreSQL", () => TestDatabase.layerPostgres(url, { maxConnections: 10 })])

/** A switch that makes the outbox refuse `task.succeeded` events. */
const breakSucceeded = Ref.unsafeMake(false)

/** The SQL webhook store, except that appending task.succeeded fails while the switch is on. */
const FlakyWebhookStore = Layer.effectContext(
  Effect.map(SqlWebhookStore.make(), (stores) => {
    const store = stores.events
    const events: EventStoreShape = {
      ...store,
      appendEvent: (event, target, now) =>
        Effect.flatMap(Ref.get(breakSucceeded), (broken) =>
          broken && event.type === "task.succeeded"
            ? Effect.fail(new Errors.StoreError({ message: "outbox unavailable" }))
            : store.appendEvent(event, target, now)
        )
    }
    return webhookStoresContext({ ...stores, events })
  })
)

const succeeded: Tasks.TaskOutcome = {
  _tag: "Succeeded",
  costMinor: 100,
  output: { _tag: "Content", mimeType: "text/plain", bytes: new TextEncoder().encode("hi"), text: "hi" }
}

for (const [name, database] of engines)
  layer(
    tasksEngine(
      Layer.mergeAll(SqlLedgerStore.layer, FlakyWebhookStore, SqlTaskStore.layer).pipe(Layer.provide(database()))
    ),
    {
      timeout: 120_000
    }
  )(`task settlement atomicity on ${name}`, (it) => {
    it.effect(
      "a failing event write rolls back the status, the charge and billing.settled; a later report settles once",
      () =>
        Effect.gen(function* () {
          const partnerId = testPartner(`p_${randomUUID()}`)
          const ledger = yield* Ledger.Ledger
          const tasks = yield* Tasks.Tasks
          const webhooks = yield* Webhooks.Webhooks
          yield* ledger.credit(partnerId, { kind: "bonus", amountMinor: 500_000 })
          yield* webhooks.createEndpoint(partnerId, { url: "https://receiver.example/hook" })
          const { task } = yield* tasks.launch(partnerId, { modelId: "gpt-5-mini", prompt: "Say hi" })

          yield* Ref.set(breakSucceeded, true)
          const error = yield* Effect.flip(tasks.report(partnerId, task.id, succeeded))
          expect(error).toMatchObject({ _tag: "StoreError", message: "outbox unavailable" })
          expect(yield* tasks.get(partnerId, task.id)).toMatchObject({
            status: "queued",
            costMinor: null,
            result: null
          })
          expect((yield* ledger.hold(partnerId, task.id))?.status).toBe("open")
          expect(yield* Effect.flip(tasks.result(partnerId, task.id))).toMatchObject({ _tag: "TaskResultUnavailable" })
          const types = (yield* webhooks.listDeliveries(partnerId, {}, 100, undefined)).deliveries.map(
            (d) => d.eventType
          )
          expect(types).not.toContain("billing.settled")

          yield* Ref.set(breakSucceeded, false)
          expect((yield* tasks.report(partnerId, task.id, succeeded)).changed).toBe(true)
          expect((yield* ledger.hold(partnerId, task.id))?.status).toBe("confirmed")
          expect(yield* tasks.result(partnerId, task.id)).toEqual({
            mimeType: "text/plain",
            bytes: new TextEncoder().encode("hi")
          })
          const after = (yield* webhooks.listDeliveries(partnerId, {}, 100, undefined)).deliveries
            .map((d) => d.eventType)
            .sort()
          expect(after).toEqual(["billing.settled", "task.succeeded"])
        })
    )
  })

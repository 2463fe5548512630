/**
 * The worker's sent mark (issue 31, uncertain means sent): requests go out only after their batch
 * is marked sent. A batch whose mark failed sends nothing; at its lease's end it is pending again
 * with no attempt counted, and the worker delivers it by itself.
 */
import { describe, expect, it } from "@effect/vitest"
import { Errors, Webhooks } from "@frank/core"
import {
  MemoryLedgerStore,
  MemoryWebhookStore,
  ScriptedReceiver,
  Simulation,
  SimulationEngine,
  testPartner
} from "@frank/core/testing"
import { Effect, Layer, TestClock } from "effect"
import { webhookStoresContext } from "@frank/core/stores"

const T0 = Date.UTC(2026, 10, 1, 10, 0, 0)
const MINUTE = 60_000

/** The memory store, whose first `markSent` fails as a lost connection would. */
const markFailsOnce = Layer.effectContext(
  Effect.map(MemoryWebhookStore.make, (stores) => {
    let failures = 1
    return webhookStoresContext({
      ...stores,
      queue: {
        ...stores.queue,
        markSent: (claims, now) =>
          failures-- > 0
            ? Effect.fail(new Errors.StoreError({ message: "markSent: connection lost" }))
            : stores.queue.markSent(claims, now)
      }
    })
  })
)

describe("the worker's sent mark", () => {
  it.effect("a batch whose mark failed is not sent; at the lease's end it is pending again and delivered", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const webhooks = yield* Webhooks.Webhooks
      const receiver = yield* ScriptedReceiver
      const sim = yield* Simulation
      const partnerId = testPartner("p1")
      const endpoint = yield* webhooks.createEndpoint(partnerId, { url: "https://a.example/hook" })
      yield* webhooks.sendTest(partnerId, endpoint.id)
      yield* sim.runDue
      expect(yield* receiver.received).toEqual([])
      const [held] = (yield* webhooks.listDeliveries(partnerId, {}, 10, undefined)).deliveries
      expect(held).toMatchObject({ status: "delivering", attempts: 1 })
      yield* sim.advance(2 * MINUTE)
      expect((yield* receiver.received).map((r) => r.at - T0)).toEqual([MINUTE])
      const [delivered] = (yield* webhooks.listDeliveries(partnerId, {}, 10, undefined)).deliveries
      expect(delivered).toMatchObject({ status: "delivered", attempts: 1, responseCodes: [200] })
    }).pipe(Effect.provide(SimulationEngine({ stores: Layer.merge(MemoryLedgerStore, markFailsOnce) })))
  )
})

/**
 * How an integrator tests their webhook flow with Frank's simulation kit: an engine on memory
 * stores, a scripted receiver, and TestClock. The whole 8 h 36 min retry schedule runs in
 * milliseconds, and attempt times are exact. Run: `npx vitest run examples/webhook-simulation.test.ts`.
 */
import { expect, it } from "@effect/vitest"
import { Ledger, Webhooks } from "@frank/core"
import {
  ScriptedReceiver,
  Simulation,
  SimulationEngine,
  testPartner,
  testTask,
  verifyReceived
} from "@frank/core/testing"
import { Effect, TestClock } from "effect"

const T0 = Date.UTC(2026, 0, 1)
// Ports take a branded PartnerId; the kit brands a readable one for tests.
const partner = testPartner("partner-1")

it.effect("a settled charge reaches my receiver after two failed attempts", () =>
  Effect.gen(function* () {
    yield* TestClock.setTime(T0)
    const webhooks = yield* Webhooks.Webhooks
    const ledger = yield* Ledger.Ledger
    const receiver = yield* ScriptedReceiver
    const sim = yield* Simulation

    // My receiver is down for the first two attempts, then answers 200.
    const url = "https://my-app.example/webhooks/frank"
    yield* receiver.script(url, [503, "timeout", 200])
    yield* webhooks.createEndpoint(partner, { url, eventTypes: ["billing.settled"] })

    // A task is reserved and settled below its hold: billing.settled is written with the charge.
    yield* ledger.credit(partner, { kind: "topup", amountMinor: 500_000 })
    yield* ledger.reserve(partner, { taskId: testTask("task-1"), amountMinor: 20_000 })
    yield* ledger.confirm(partner, { taskId: testTask("task-1"), amountMinor: 15_000 })

    yield* sim.advance("1 hour")

    const attempts = yield* receiver.received
    expect(attempts.map((a) => (a.at - T0) / 60_000)).toEqual([0, 1, 6]) // minutes
    expect(attempts.map((a) => a.answer)).toEqual([503, "timeout", 200])
    const event = JSON.parse(attempts[2]?.body ?? "{}")
    expect(event).toMatchObject({
      eventType: "billing.settled",
      schemaVersion: 1,
      data: { taskId: "task-1", amountFranks: 150 }
    })

    const { deliveries } = yield* webhooks.listDeliveries(partner, {}, 10, undefined)
    expect(deliveries.map((d) => [d.status, d.responseCodes])).toEqual([["delivered", [503, null, 200]]])
  }).pipe(Effect.provide(SimulationEngine()))
)

it.effect("with Standard Webhooks signing, every attempt verifies with my secret", () =>
  Effect.gen(function* () {
    yield* TestClock.setTime(T0)
    const webhooks = yield* Webhooks.Webhooks
    const receiver = yield* ScriptedReceiver
    const sim = yield* Simulation

    const url = "https://my-app.example/webhooks/standard"
    yield* receiver.script(url, [500, 200])
    const { secret, id } = yield* webhooks.createEndpoint(partner, { url, signatureScheme: "standard-webhooks" })
    const { event } = yield* webhooks.sendTest(partner, id)
    yield* sim.advance("5 minutes")

    const attempts = yield* receiver.received
    expect(attempts.map((a) => a.headers["webhook-id"])).toEqual([event.id, event.id])
    // Each attempt checked as my receiver would have, at the moment it arrived.
    for (const attempt of attempts)
      expect(yield* verifyReceived(attempt, secret)).toMatchObject({ ok: true, scheme: "standard-webhooks" })
  }).pipe(Effect.provide(SimulationEngine()))
)

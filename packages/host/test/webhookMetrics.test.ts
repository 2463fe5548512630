/**
 * The webhook series of /metrics: attempt counters fed by the delivery worker (run here by the
 * simulation kit, so every attempt is real worker code under TestClock) and the backlog gauges
 * read from the store at scrape time.
 */
import { describe, expect, it } from "@effect/vitest"
import { Webhooks } from "@frank/core"
import { ScriptedReceiver, Simulation, SimulationEngine, testPartner } from "@frank/core/testing"
import { Effect, Layer, TestClock } from "effect"
import { Metrics } from "../src/metrics/Metrics.js"
import { attemptAnswer, deliveryObserverLayer, webhookBacklogGauges } from "../src/metrics/webhookMetrics.js"

const T0 = Date.UTC(2026, 10, 1)
const body = Effect.flatMap(Metrics, (m) => Effect.map(m.render, (r) => r.body))
// The engine's worker reports to the observer built on this host's registry; the gauges read its store.
const Host = webhookBacklogGauges.pipe(
  Layer.provideMerge(SimulationEngine()),
  Layer.provideMerge(deliveryObserverLayer),
  Layer.provideMerge(Metrics.layer)
)

describe("webhook metrics", () => {
  it("labels an answer by its status class or by why there was none", () => {
    expect(attemptAnswer("Answered", 204)).toBe("2xx")
    expect(attemptAnswer("Answered", 302)).toBe("3xx")
    expect(attemptAnswer("Answered", 503)).toBe("5xx")
    expect(attemptAnswer("TimedOut", null)).toBe("timeout")
    expect(attemptAnswer("ConnectionFailed", null)).toBe("connection_failed")
    expect(attemptAnswer("AddressRefused", null)).toBe("address_refused")
  })

  it.effect("counts attempts by result and answer, and shows the due backlog with the age of its oldest", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const webhooks = yield* Webhooks.Webhooks
      const receiver = yield* ScriptedReceiver
      const sim = yield* Simulation
      const url = "https://receiver.example/metrics"
      yield* receiver.script(url, [503, "timeout", 200, 200])
      const endpoint = yield* webhooks.createEndpoint(testPartner("partner-1"), { url })
      yield* webhooks.sendTest(testPartner("partner-1"), endpoint.id)
      yield* webhooks.sendTest(testPartner("partner-1"), endpoint.id)
      // Due since T0 and not attempted yet: the worker has not run.
      yield* TestClock.setTime(T0 + 90_000)
      let text = yield* body
      expect(text).toMatch(/^frank_webhook_due_deliveries 2$/m)
      expect(text).toMatch(/^frank_webhook_oldest_due_age_seconds 90$/m)
      yield* sim.advance("10 minutes")
      text = yield* body
      expect(text).toMatch(/^frank_webhook_attempts_total\{result="retrying",answer="5xx"\} 1$/m)
      expect(text).toMatch(/^frank_webhook_attempts_total\{result="retrying",answer="timeout"\} 1$/m)
      expect(text).toMatch(/^frank_webhook_attempts_total\{result="delivered",answer="2xx"\} 2$/m)
      expect(text).toMatch(/^frank_webhook_due_deliveries 0$/m)
      expect(text).toMatch(/^frank_webhook_oldest_due_age_seconds 0$/m)
      expect(text).toMatch(/^frank_webhook_uncertain_total 0$/m)
      expect(text).toMatch(/^frank_webhook_endpoints_disabled_total\{reason="failing"\} 0$/m)
    }).pipe(Effect.provide(Host))
  )

  it.effect("counts the endpoints the health rule pauses", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const webhooks = yield* Webhooks.Webhooks
      const receiver = yield* ScriptedReceiver
      const sim = yield* Simulation
      const url = "https://receiver.example/failing"
      yield* receiver.script(
        url,
        Array.from({ length: 12 }, () => 503)
      )
      const endpoint = yield* webhooks.createEndpoint(testPartner("partner-2"), { url })
      yield* webhooks.sendTest(testPartner("partner-2"), endpoint.id)
      yield* webhooks.sendTest(testPartner("partner-2"), endpoint.id)
      // Both dead-letter at 8 h 36 min; a day after that the rule (1 day, 2 dead letters) pauses the endpoint.
      yield* sim.advance("33 hours")
      expect(yield* body).toMatch(/^frank_webhook_endpoints_disabled_total\{reason="failing"\} 1$/m)
      expect((yield* webhooks.listEndpoints(testPartner("partner-2")))[0]?.health.disabledReason).toBe("failing")
    }).pipe(
      Effect.provide(
        webhookBacklogGauges.pipe(
          Layer.provideMerge(SimulationEngine({ disableFailing: { afterMs: 24 * 3_600_000, minFailures: 2 } })),
          Layer.provideMerge(deliveryObserverLayer),
          Layer.provideMerge(Metrics.layer)
        )
      )
    )
  )
})

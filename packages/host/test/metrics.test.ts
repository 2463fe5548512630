/**
 * The Prometheus registry of the host: request and rate-limit series with their labels, default
 * process metrics, and gauges/counters registered later by other modules.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Metrics } from "../src/metrics/Metrics.js"

const body = Effect.map(Metrics, (m) => m.render).pipe(
  Effect.flatten,
  Effect.map((r) => r.body)
)

describe("Metrics", () => {
  it.effect("renders request counters and durations by route template, and rate-limit refusals", () =>
    Effect.gen(function* () {
      const metrics = yield* Metrics
      yield* metrics.observeRequest("GET", "/v1/webhooks/endpoints/:id", 200, 12)
      yield* metrics.observeRequest("GET", "/v1/webhooks/endpoints/:id", 200, 30)
      yield* metrics.observeRequest("POST", "/v1/billing/api-keys", 429, 2)
      metrics.rateLimited("api_key", "/v1/billing/balance")
      const { contentType, body } = yield* metrics.render
      expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/)
      expect(body).toContain(
        'frank_http_requests_total{method="GET",route="/v1/webhooks/endpoints/:id",status="200"} 2'
      )
      expect(body).toContain('frank_http_requests_total{method="POST",route="/v1/billing/api-keys",status="429"} 1')
      expect(body).toContain(
        'frank_http_request_duration_seconds_count{method="GET",route="/v1/webhooks/endpoints/:id"} 2'
      )
      expect(body).toContain(
        'frank_http_request_duration_seconds_bucket{le="0.025",method="GET",route="/v1/webhooks/endpoints/:id"} 1'
      )
      const sum = body.match(
        /frank_http_request_duration_seconds_sum\{method="GET",route="\/v1\/webhooks\/endpoints\/:id"\} (\S+)/
      )
      expect(Number(sum?.[1])).toBeCloseTo(0.042, 9)
      expect(body).toContain('frank_rate_limited_total{limit="api_key",route="/v1/billing/balance"} 1')
      expect(body).toContain("# TYPE process_cpu_user_seconds_total counter")
      expect(body).toContain("# TYPE nodejs_heap_size_used_bytes gauge")
    }).pipe(Effect.provide(Metrics.layer))
  )

  it.effect("each layer has its own registry", () =>
    Effect.gen(function* () {
      yield* Effect.map(Metrics, (m) => m.rateLimited("ip_method", "/v1/tasks")).pipe(Effect.provide(Metrics.layer))
      expect(yield* body.pipe(Effect.provide(Metrics.layer))).not.toContain('limit="ip_method"')
    })
  )

  it.effect("modules register counters and gauges later; registering a name twice returns the same series", () =>
    Effect.gen(function* () {
      const metrics = yield* Metrics
      const deliveries = yield* metrics.counter({
        name: "frank_webhook_deliveries_total",
        help: "Webhook deliveries by outcome",
        labelNames: ["outcome"]
      })
      yield* deliveries.inc({ outcome: "delivered" })
      const again = yield* metrics.counter({
        name: "frank_webhook_deliveries_total",
        help: "Webhook deliveries by outcome",
        labelNames: ["outcome"]
      })
      yield* again.inc({ outcome: "delivered" }, 3)
      const inflight = yield* metrics.gauge({ name: "frank_webhook_inflight", help: "Deliveries in flight" })
      yield* inflight.inc()
      yield* inflight.inc()
      yield* inflight.dec()
      const rendered = yield* body
      expect(rendered).toContain('frank_webhook_deliveries_total{outcome="delivered"} 4')
      expect(rendered).toContain("frank_webhook_inflight 1")
      const wrongKind = yield* Effect.exit(metrics.gauge({ name: "frank_webhook_deliveries_total", help: "x" }))
      expect(wrongKind._tag).toBe("Failure")
    }).pipe(Effect.provide(Metrics.layer))
  )

  it.effect("gauges read at scrape time: one value, or one per label set; a failing read keeps the last value", () =>
    Effect.gen(function* () {
      const metrics = yield* Metrics
      let depth = 7
      yield* metrics.gauge({
        name: "frank_webhook_queue_depth",
        help: "Deliveries waiting",
        collect: Effect.sync(() => depth)
      })
      let readings: ReadonlyArray<{ labels: { state: string }; value: number }> = [
        { labels: { state: "pending" }, value: 3 },
        { labels: { state: "retrying" }, value: 1 }
      ]
      yield* metrics.gauge({
        name: "frank_webhook_queue_by_state",
        help: "Deliveries by state",
        labelNames: ["state"],
        collect: Effect.sync(() => readings)
      })
      let broken = false
      yield* metrics.gauge({
        name: "frank_probe",
        help: "A probe that may fail",
        collect: Effect.suspend(() => (broken ? Effect.fail("database down") : Effect.succeed(5)))
      })
      let rendered = yield* body
      expect(rendered).toContain("frank_webhook_queue_depth 7")
      expect(rendered).toContain('frank_webhook_queue_by_state{state="pending"} 3')
      expect(rendered).toContain('frank_webhook_queue_by_state{state="retrying"} 1')
      expect(rendered).toContain("frank_probe 5")

      depth = 2
      readings = [{ labels: { state: "pending" }, value: 9 }]
      broken = true
      rendered = yield* body
      expect(rendered).toContain("frank_webhook_queue_depth 2")
      expect(rendered).toContain('frank_webhook_queue_by_state{state="pending"} 9')
      expect(rendered).not.toContain('state="retrying"')
      expect(rendered).toContain("frank_probe 5")
    }).pipe(Effect.provide(Metrics.layer))
  )
})

/**
 * Prometheus metrics of the host on a private prom-client registry (not the global one, so several
 * hosts in one process — tests — do not collide). Route labels are route templates
 * (`/v1/webhooks/endpoints/:id`), never concrete paths, to keep cardinality bounded: the caller
 * passes the template. The text exposition is always produced by the registry.
 */
import { Context, Effect, Layer } from "effect"
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client"
import {
  type CounterHandle,
  type GaugeHandle,
  type GaugeSpec,
  type MetricSpec,
  makeCounter,
  makeGauge
} from "./handles.js"

export interface MetricsShape {
  readonly registry: Registry
  /** One finished HTTP request; `route` is the route template. */
  readonly observeRequest: (method: string, route: string, status: number, durationMs: number) => Effect.Effect<void>
  /**
   * One request answered 429 by the rate limit named `limit` (`api_key`, `ip_method`, `session`,
   * `import`) on route template `route`. Synchronous: node:http's early refusals call it too.
   */
  readonly rateLimited: (limit: string, route: string) => void
  /** Registers (or returns the already registered) counter `spec.name`. */
  readonly counter: <L extends string = never>(spec: MetricSpec<L>) => Effect.Effect<CounterHandle<L>>
  /** Registers (or returns the already registered) gauge `spec.name`, optionally read at scrape time. */
  readonly gauge: <L extends string = never>(spec: GaugeSpec<L>) => Effect.Effect<GaugeHandle<L>>
  /** Prometheus text exposition of everything registered. */
  readonly render: Effect.Effect<{ readonly contentType: string; readonly body: string }>
}

// Seconds; from a cached read (~1 ms) to a slow export, with the SLO-relevant 100–500 ms dense.
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export const makeMetrics: Effect.Effect<MetricsShape> = Effect.gen(function* () {
  // Gauges read at scrape time run their Effects with the runtime the service was built in
  // (its logger, its config provider).
  const runtime = yield* Effect.runtime<never>()
  const registry = new Registry()
  // Unprefixed standard names (process_cpu_seconds_total, nodejs_heap_size_used_bytes, ...), so
  // stock Node.js dashboards work; Prometheus' job label tells the services apart.
  collectDefaultMetrics({ register: registry })
  const requests = new Counter({
    name: "frank_http_requests_total",
    help: "HTTP requests by method, route template and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry]
  })
  const duration = new Histogram({
    name: "frank_http_request_duration_seconds",
    help: "HTTP request duration by method and route template",
    labelNames: ["method", "route"] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry]
  })
  const rateLimited = new Counter({
    name: "frank_rate_limited_total",
    help: "Requests refused with 429 (early refusals at node:http included), by limit and route template",
    labelNames: ["limit", "route"] as const,
    registers: [registry]
  })
  return {
    registry,
    observeRequest: (method, route, status, durationMs) =>
      Effect.sync(() => {
        requests.inc({ method, route, status: String(status) })
        duration.observe({ method, route }, durationMs / 1000)
      }),
    rateLimited: (limit, route) => rateLimited.inc({ limit, route }),
    counter: (spec) => Effect.sync(() => makeCounter(registry, spec)),
    gauge: (spec) => Effect.sync(() => makeGauge(registry, runtime, spec)),
    render: Effect.promise(async () => ({ contentType: registry.contentType, body: await registry.metrics() }))
  }
})

export class Metrics extends Context.Tag("@frank/host/Metrics")<Metrics, MetricsShape>() {
  static readonly layer: Layer.Layer<Metrics> = Layer.effect(Metrics, makeMetrics)
}

/**
 * Prometheus metrics of the host on a private prom-client registry (not the global one, so several
 * hosts in one process — tests — do not collide). Route labels are route templates, never concrete
 * paths, to keep cardinality bounded.
 */
import { Context, Effect, Layer } from "effect"
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client"

export interface MetricsShape {
  readonly registry: Registry
  readonly observeRequest: (method: string, route: string, status: number, durationMs: number) => Effect.Effect<void>
  readonly render: Effect.Effect<{ readonly contentType: string; readonly body: string }>
}

export class Metrics extends Context.Tag("@frank/host/Metrics")<Metrics, MetricsShape>() {
  static readonly layer = Layer.sync(Metrics, () => {
    const registry = new Registry()
    collectDefaultMetrics({ register: registry, prefix: "frank_" })
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
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: [registry]
    })
    return {
      registry,
      observeRequest: (method, route, status, durationMs) =>
        Effect.sync(() => {
          requests.inc({ method, route, status: String(status) })
          duration.observe({ method, route }, durationMs / 1000)
        }),
      render: Effect.promise(async () => ({ contentType: registry.contentType, body: await registry.metrics() }))
    }
  })
}

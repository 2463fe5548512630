/**
 * OpenTelemetry export of the reference host: spans, logs and the Prometheus metrics over
 * OTLP/HTTP to `OTEL_EXPORTER_OTLP_ENDPOINT`, through @effect/opentelemetry's own OTLP exporters
 * (no OpenTelemetry SDK: they post with @effect/platform's fetch client, so Bun and Deno work as
 * Node does). Loaded by dynamic import only when an endpoint is set: a host without one carries
 * none of it. Effect's tracer is turned on with it (off otherwise, docs/performance.md "Spans").
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Duration, Effect, Layer } from "effect"
import { Metrics } from "../metrics/Metrics.js"
import type { OtelSettings } from "./otelConfig.js"
import { promMetricsExport } from "./promMetricsExport.js"

const load = Effect.promise(() =>
  Promise.all([
    import("@effect/opentelemetry/OtlpTracer"),
    import("@effect/opentelemetry/OtlpLogger"),
    import("@effect/opentelemetry/OtlpResource"),
    import("@effect/opentelemetry/OtlpSerialization")
  ])
)

/** The exporters for `settings`; sets Effect's tracer to the OTLP one for what is built after it. */
export const otlpLayer = (settings: OtelSettings): Layer.Layer<never, never, Metrics> =>
  Layer.unwrapEffect(
    Effect.map(load, ([OtlpTracer, OtlpLogger, OtlpResource, OtlpSerialization]) => {
      // The service name among the attributes too: the package also reads OTEL_RESOURCE_ATTRIBUTES
      // itself, and its `service.name` would otherwise stand beside ours.
      const resource = {
        serviceName: settings.serviceName,
        attributes: { ...settings.resourceAttributes, "service.name": settings.serviceName }
      }
      const url = (signal: string) => `${settings.endpoint}/v1/${signal}`
      const common = { resource, headers: settings.headers, shutdownTimeout: Duration.seconds(3) }
      const metrics = Layer.scopedDiscard(
        Effect.gen(function* () {
          const serialization = yield* OtlpSerialization.OtlpSerialization
          const client = HttpClient.filterStatusOk(yield* HttpClient.HttpClient)
          const post = HttpClientRequest.post(url("metrics"), { headers: settings.headers })
          yield* promMetricsExport(yield* Metrics, {
            intervalMs: settings.metricsIntervalMs,
            resource: yield* OtlpResource.fromConfig(resource),
            scopeName: settings.serviceName,
            send: (data) => Effect.scoped(client.execute(HttpClientRequest.setBody(post, serialization.metrics(data))))
          })
        })
      )
      return Layer.mergeAll(
        OtlpTracer.layer({ ...common, url: url("traces"), exportInterval: Duration.millis(settings.tracesIntervalMs) }),
        OtlpLogger.layer({ ...common, url: url("logs"), exportInterval: Duration.millis(settings.logsIntervalMs) }),
        metrics
      ).pipe(
        Layer.provide(
          settings.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf
        ),
        Layer.provide(FetchHttpClient.layer)
      )
    })
  )

/**
 * What the host adds for telemetry: with settings, the exporters and Effect's tracer on; without,
 * the tracer off (no exporter would read the spans).
 */
export const telemetryLayers = (settings: OtelSettings | undefined) => ({
  exporters: settings === undefined ? Layer.empty : otlpLayer(settings),
  tracing: Layer.setTracerEnabled(settings !== undefined),
  enabled: settings !== undefined
})

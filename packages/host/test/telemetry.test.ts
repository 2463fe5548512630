/**
 * The OpenTelemetry pieces that are rules, not wiring: the `OTEL_*` settings, the Prometheus
 * registry as OTLP metrics, and an attempt span's attributes. The export itself is tested end
 * to end in test/e2e/opentelemetry.e2e.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Option } from "effect"
import { Counter, Histogram, Registry } from "prom-client"
import { otelSettings, parseKeyValues } from "../src/telemetry/otelConfig.js"
import { promToOtlpMetrics } from "../src/telemetry/promToOtlp.js"

const settings = (env: Record<string, string>) =>
  Effect.runSyncExit(otelSettings.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))

describe("OTEL_* settings", () => {
  it("turns export on only with an endpoint", () => {
    expect(settings({})).toEqual(Exit.succeed(Option.none()))
    expect(settings({ OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toEqual(Exit.succeed(Option.none()))
  })

  it("defaults to http/protobuf and the service name frank", () => {
    const s = settings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })
    expect(s).toEqual(
      Exit.succeed(
        Option.some({
          endpoint: "http://collector:4318",
          protocol: "http/protobuf",
          serviceName: "frank",
          resourceAttributes: {},
          headers: {},
          tracesIntervalMs: 5000,
          metricsIntervalMs: 60000,
          logsIntervalMs: 1000
        })
      )
    )
  })

  it("takes the service name from OTEL_SERVICE_NAME over the resource attributes, and headers", () => {
    const s = Exit.map(
      settings({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_RESOURCE_ATTRIBUTES: "service.name=billing,deployment.environment=prod%20eu",
        OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=abc%3D"
      }),
      Option.getOrThrow
    )
    expect(s).toMatchObject(
      Exit.succeed({
        protocol: "http/json",
        serviceName: "billing",
        resourceAttributes: { "deployment.environment": "prod eu" },
        headers: { "x-api-key": "abc=" }
      })
    )
    const named = Exit.map(
      settings({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c",
        OTEL_SERVICE_NAME: "frank-eu",
        OTEL_RESOURCE_ATTRIBUTES: "service.name=x"
      }),
      (o) => Option.getOrThrow(o).serviceName
    )
    expect(named).toEqual(Exit.succeed("frank-eu"))
  })

  it("refuses gRPC at start, naming the variable", () => {
    const s = settings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })
    expect(Exit.isFailure(s)).toBe(true)
    expect(String(Exit.isFailure(s) ? s.cause : "")).toContain("OTEL_EXPORTER_OTLP_PROTOCOL")
  })

  it("parses key=value lists, skipping malformed pairs", () => {
    expect(parseKeyValues("a=1, b = two ,broken,=x,c=%E2%82%A3")).toEqual({ a: "1", b: "two", c: "₣" })
  })
})

describe("the Prometheus registry as OTLP metrics", () => {
  it("turns counters into monotonic sums and cumulative le buckets into per-bucket counts", async () => {
    const registry = new Registry()
    const c = new Counter({ name: "c_total", help: "a counter", labelNames: ["route"], registers: [registry] })
    c.inc({ route: "/a" }, 3)
    const h = new Histogram({ name: "d_seconds", help: "durations", buckets: [0.1, 1], registers: [registry] })
    h.observe(0.05)
    h.observe(0.5)
    h.observe(0.7)
    h.observe(5)
    const metrics = promToOtlpMetrics(await registry.getMetricsAsJSON(), 1n, 2n)
    const counter = metrics.find((m) => m.name === "c_total")
    expect(counter?.sum).toEqual({
      aggregationTemporality: 2,
      isMonotonic: true,
      dataPoints: [
        {
          attributes: [{ key: "route", value: { stringValue: "/a" } }],
          startTimeUnixNano: "1",
          timeUnixNano: "2",
          asDouble: 3
        }
      ]
    })
    const histogram = metrics.find((m) => m.name === "d_seconds")
    expect(histogram?.unit).toBe("s")
    expect(histogram?.histogram?.dataPoints).toEqual([
      expect.objectContaining({ count: 4, sum: 6.25, bucketCounts: [1, 2, 1], explicitBounds: [0.1, 1] })
    ])
  })
})

/**
 * Pushes the host's Prometheus registry as OTLP metrics every interval, and once more when the
 * host stops. A failed push is logged at debug and the next one sends the totals again: the
 * metrics are cumulative, so nothing is lost but resolution.
 */
import { Clock, Duration, Effect, Schedule, type Scope } from "effect"
import type { MetricsShape } from "../metrics/Metrics.js"
import { promToOtlpMetrics } from "./promToOtlp.js"

export interface PromExportOptions {
  readonly intervalMs: number
  /** The OTLP resource (service name and attributes), as @effect/opentelemetry builds it. */
  readonly resource: unknown
  readonly scopeName: string
  /** Encodes and posts one `ExportMetricsServiceRequest`. */
  readonly send: (data: unknown) => Effect.Effect<void, unknown>
}

/** Forks the periodic push into the current scope; the final push runs when the scope closes. */
export const promMetricsExport = (
  metrics: MetricsShape,
  options: PromExportOptions
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const start = yield* Clock.currentTimeNanos
    const push = Effect.gen(function* () {
      const json = yield* Effect.promise(() => metrics.registry.getMetricsAsJSON())
      const now = yield* Clock.currentTimeNanos
      const scopeMetrics = [{ scope: { name: options.scopeName }, metrics: promToOtlpMetrics(json, start, now) }]
      yield* options.send({ resourceMetrics: [{ resource: options.resource, scopeMetrics }] })
    }).pipe(
      // The export's own request is not something to trace.
      Effect.withTracerEnabled(false),
      Effect.catchAllCause((cause) => Effect.logDebug("OTLP metrics export failed", cause))
    )
    yield* Effect.addFinalizer(() => Effect.asVoid(Effect.timeoutOption(push, Duration.seconds(3))))
    yield* Effect.forkScoped(Effect.schedule(push, Schedule.spaced(Duration.millis(options.intervalMs))))
  })

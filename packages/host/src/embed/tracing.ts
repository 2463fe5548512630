/**
 * An embedded Frank's spans in the embedder's OpenTelemetry. Given a `TracerProvider` (the SDK's
 * `NodeTracerProvider`, or `trace.getTracerProvider()` for the registered one), Effect's tracer
 * becomes @effect/opentelemetry's over a tracer of that provider: the ledger command, outbox
 * write, fan-out and delivery attempt spans the reference host exports (docs/contract.md §6) are
 * started there, and a method called inside the embedder's active span runs below it. Loaded by
 * dynamic import only when a provider is given; without one Effect's tracer stays off, as in the
 * host without an exporter (spans would only cost time per call and query).
 */
import type { TracerProvider } from "@opentelemetry/api"
import { Effect, Layer } from "effect"

/** The instrumentation scope of Frank's spans in the embedder's tracer provider. */
export const TRACER_NAME = "frank"

export const embedTracing = (provider: TracerProvider | undefined): Layer.Layer<never> =>
  provider === undefined
    ? Layer.setTracerEnabled(false)
    : Layer.unwrapEffect(
        Effect.map(
          Effect.promise(() => import("@effect/opentelemetry/Tracer")),
          (Tracer) =>
            Tracer.layerWithoutOtelTracer.pipe(
              Layer.provide(Layer.succeed(Tracer.OtelTracer, provider.getTracer(TRACER_NAME)))
            )
        )
      )

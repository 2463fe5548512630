/**
 * Counters and gauges that other modules register on the host's registry after start (webhook
 * queue depth, delivery outcomes, ...), behind Effect-returning handles so callers never touch
 * prom-client directly and the registry stays the single owner of metric names.
 */
import { Cause, Effect, Runtime } from "effect"
import { Counter, Gauge, type LabelValues, type Metric, type Registry } from "prom-client"

export type Labels<L extends string> = LabelValues<L>

export interface MetricSpec<L extends string> {
  /** Prometheus name, e.g. `frank_webhook_queue_depth` (prefix host metrics with `frank_`). */
  readonly name: string
  readonly help: string
  readonly labelNames?: ReadonlyArray<L>
}

export interface CounterHandle<L extends string> {
  readonly inc: (labels?: Labels<L>, by?: number) => Effect.Effect<void>
}

export interface GaugeHandle<L extends string> {
  readonly set: (value: number, labels?: Labels<L>) => Effect.Effect<void>
  readonly inc: (labels?: Labels<L>, by?: number) => Effect.Effect<void>
  readonly dec: (labels?: Labels<L>, by?: number) => Effect.Effect<void>
}

/** A reading taken at scrape time: one value, or one per label set (label sets not returned vanish). */
export type GaugeReading<L extends string> =
  | number
  | ReadonlyArray<{ readonly labels: Labels<L>; readonly value: number }>

export interface GaugeSpec<L extends string> extends MetricSpec<L> {
  /**
   * Read at every scrape (e.g. a `SELECT count(*)` of the queue). A failure is logged and the
   * previous value is kept, so one broken probe never takes /metrics down.
   */
  readonly collect?: Effect.Effect<GaugeReading<L>, unknown>
}

/**
 * The metric already registered under `name`, when there is one of the right kind: registering
 * twice (a layer built twice, a module re-initialised) returns the same series instead of throwing.
 */
const existing = <M>(registry: Registry, name: string, kind: abstract new (...args: never) => M): M | undefined => {
  const found: Metric<string> | undefined = registry.getSingleMetric(name)
  if (found === undefined) return undefined
  if (!(found instanceof kind)) throw new Error(`metric ${name} is already registered with another type`)
  return found
}

const labelsOf = <L extends string>(labels: Labels<L> | undefined): Labels<L> => labels ?? {}

export const makeCounter = <L extends string>(registry: Registry, spec: MetricSpec<L>): CounterHandle<L> => {
  const counter =
    existing(registry, spec.name, Counter<L>) ??
    new Counter<L>({ name: spec.name, help: spec.help, labelNames: spec.labelNames ?? [], registers: [registry] })
  return { inc: (labels, by = 1) => Effect.sync(() => counter.inc(labelsOf(labels), by)) }
}

export const makeGauge = <L extends string>(
  registry: Registry,
  runtime: Runtime.Runtime<never>,
  spec: GaugeSpec<L>
): GaugeHandle<L> => {
  const run = Runtime.runPromiseExit(runtime)
  const collect = spec.collect
  const gauge =
    existing(registry, spec.name, Gauge<L>) ??
    new Gauge<L>({
      name: spec.name,
      help: spec.help,
      labelNames: spec.labelNames ?? [],
      registers: [registry],
      ...(collect === undefined
        ? {}
        : {
            async collect() {
              const exit = await run(collect)
              if (exit._tag === "Failure") {
                await run(
                  Effect.logWarning(
                    `metric ${spec.name}: collect failed; keeping the last value`,
                    Cause.squash(exit.cause)
                  )
                )
                return
              }
              const reading = exit.value
              if (typeof reading === "number") return void this.set(reading)
              this.reset()
              for (const r of reading) this.set(r.labels, r.value)
            }
          })
    })
  return {
    set: (value, labels) => Effect.sync(() => gauge.set(labelsOf(labels), value)),
    inc: (labels, by = 1) => Effect.sync(() => gauge.inc(labelsOf(labels), by)),
    dec: (labels, by = 1) => Effect.sync(() => gauge.dec(labelsOf(labels), by))
  }
}

/**
 * The host's Prometheus metrics (prom-client's registry, metrics/Metrics.ts) as OTLP metric data,
 * as a pure function of the registry's JSON: counters become cumulative monotonic sums, gauges
 * gauges, histograms explicit-bucket histograms (prom-client's cumulative `le` buckets turned into
 * per-bucket counts). The same names as on /metrics, so one dashboard query works for both.
 */
import type { MetricObjectWithValues, MetricValue, MetricValueWithName } from "prom-client"

type Attributes = Array<{ readonly key: string; readonly value: { readonly stringValue: string } }>

const attributesOf = (labels: Readonly<Record<string, string | number | undefined>>, skip?: string): Attributes =>
  Object.entries(labels)
    .filter(([key, value]) => key !== skip && value !== undefined)
    .map(([key, value]) => ({ key, value: { stringValue: String(value) } }))

const pointOf = (v: MetricValue<string>, start: string, now: string) => ({
  attributes: attributesOf(v.labels),
  startTimeUnixNano: start,
  timeUnixNano: now,
  asDouble: v.value
})

interface Series {
  labels: Record<string, string | number | undefined>
  bounds: Array<number>
  cumulative: Array<number>
  sum: number
  count: number
}

/** One data point per label set: bucket rows grouped by their labels without `le`. */
const histogramPoints = (values: ReadonlyArray<MetricValueWithName<string>>, start: string, now: string) => {
  const series = new Map<string, Series>()
  const seriesOf = (labels: Record<string, string | number | undefined>) => {
    const { le: _le, ...rest } = labels
    const key = JSON.stringify(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b)))
    let s = series.get(key)
    if (s === undefined) {
      s = { labels: rest, bounds: [], cumulative: [], sum: 0, count: 0 }
      series.set(key, s)
    }
    return s
  }
  for (const v of values) {
    const s = seriesOf(v.labels)
    if (v.metricName?.endsWith("_bucket")) {
      if (v.labels.le !== "+Inf") s.bounds.push(Number(v.labels.le))
      s.cumulative.push(v.value)
    } else if (v.metricName?.endsWith("_sum")) s.sum = v.value
    else if (v.metricName?.endsWith("_count")) s.count = v.value
  }
  return [...series.values()].map((s) => ({
    attributes: attributesOf(s.labels),
    startTimeUnixNano: start,
    timeUnixNano: now,
    count: s.count,
    sum: s.sum,
    bucketCounts: s.cumulative.map((c, i) => c - (i === 0 ? 0 : (s.cumulative[i - 1] as number))),
    explicitBounds: s.bounds
  }))
}

const CUMULATIVE = 2

/** One OTLP metric in the shape @effect/opentelemetry's serializers encode (JSON or protobuf). */
export interface OtlpMetric {
  readonly name: string
  readonly description: string
  readonly unit: string
  readonly sum?: { aggregationTemporality: number; isMonotonic: boolean; dataPoints: Array<unknown> }
  readonly gauge?: { dataPoints: Array<unknown> }
  readonly histogram?: { aggregationTemporality: number; dataPoints: Array<unknown> }
}

/** OTLP `Metric`s of the registry's JSON at `nowNanos`, counted since `startNanos`. */
export const promToOtlpMetrics = (
  metrics: ReadonlyArray<MetricObjectWithValues<MetricValue<string>>>,
  startNanos: bigint,
  nowNanos: bigint
): Array<OtlpMetric> => {
  const start = String(startNanos)
  const now = String(nowNanos)
  return metrics.flatMap((m): Array<OtlpMetric> => {
    const base = { name: m.name, description: m.help, unit: m.name.endsWith("_seconds") ? "s" : "1" }
    switch (String(m.type)) {
      case "counter":
        return [
          {
            ...base,
            sum: {
              aggregationTemporality: CUMULATIVE,
              isMonotonic: true,
              dataPoints: m.values.map((v) => pointOf(v, start, now))
            }
          }
        ]
      case "gauge":
        return [{ ...base, gauge: { dataPoints: m.values.map((v) => pointOf(v, start, now)) } }]
      case "histogram": {
        const dataPoints = histogramPoints(m.values as ReadonlyArray<MetricValueWithName<string>>, start, now)
        return dataPoints.length === 0
          ? []
          : [{ ...base, histogram: { aggregationTemporality: CUMULATIVE, dataPoints } }]
      }
      default:
        // The host registers no summaries; a stray one is left to /metrics.
        return []
    }
  })
}

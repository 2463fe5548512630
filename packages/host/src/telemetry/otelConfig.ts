/**
 * OpenTelemetry export settings from the standard `OTEL_*` variables (docs/contract.md §6). Only
 * the endpoint turns export on; without it the host loads nothing of OpenTelemetry. The protocol
 * defaults to `http/protobuf`, the specification's default; gRPC is refused at start, since the
 * exporter speaks OTLP over HTTP only. Intervals use the specification's variable names, in ms.
 */
import { Config, ConfigError, Either, Option } from "effect"

/** The OTLP/HTTP encodings the exporter speaks. */
export const OTLP_PROTOCOLS = ["http/protobuf", "http/json"] as const
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number]

export interface OtelSettings {
  /** Base URL; signals go to `{endpoint}/v1/traces`, `/v1/metrics` and `/v1/logs`. */
  readonly endpoint: string
  readonly protocol: OtlpProtocol
  /** `OTEL_SERVICE_NAME`, else `service.name` of the resource attributes, else `frank`. */
  readonly serviceName: string
  /** `OTEL_RESOURCE_ATTRIBUTES` (`key=value,…`), the service name excepted. */
  readonly resourceAttributes: Readonly<Record<string, string>>
  /** Extra request headers (`OTEL_EXPORTER_OTLP_HEADERS`: `key=value,key=value`). */
  readonly headers: Readonly<Record<string, string>>
  readonly tracesIntervalMs: number
  readonly metricsIntervalMs: number
  readonly logsIntervalMs: number
}

const present = (name: string) =>
  Config.string(name).pipe(Config.option, Config.map(Option.filter((v) => v.trim() !== "")))

const protocol = present("OTEL_EXPORTER_OTLP_PROTOCOL").pipe(
  Config.mapOrFail((p) => {
    const value = Option.getOrElse(p, () => "http/protobuf").trim()
    return (OTLP_PROTOCOLS as ReadonlyArray<string>).includes(value)
      ? Either.right(value as OtlpProtocol)
      : Either.left(
          ConfigError.InvalidData(
            ["OTEL_EXPORTER_OTLP_PROTOCOL"],
            `expected http/protobuf or http/json (gRPC is not supported), got "${value}"`
          )
        )
  })
)

/** `key=value,key=value` with percent-encoded values, as the specification writes headers and attributes. */
export const parseKeyValues = (text: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=")
    if (at <= 0) continue
    const key = pair.slice(0, at).trim()
    const raw = pair.slice(at + 1).trim()
    try {
      out[key] = decodeURIComponent(raw)
    } catch {
      out[key] = raw
    }
  }
  return out
}

const millis = (name: string, fallback: number) => Config.integer(name).pipe(Config.withDefault(fallback))

/** The settings, or none when `OTEL_EXPORTER_OTLP_ENDPOINT` is unset or empty. */
export const otelSettings: Config.Config<Option.Option<OtelSettings>> = Config.all({
  endpoint: present("OTEL_EXPORTER_OTLP_ENDPOINT"),
  protocol,
  serviceName: present("OTEL_SERVICE_NAME"),
  resourceAttributes: present("OTEL_RESOURCE_ATTRIBUTES").pipe(
    Config.map((a) => (Option.isSome(a) ? parseKeyValues(a.value) : {}))
  ),
  headers: present("OTEL_EXPORTER_OTLP_HEADERS").pipe(
    Config.map((h) => (Option.isSome(h) ? parseKeyValues(h.value) : {}))
  ),
  // The specification's defaults: spans every 5 s, metrics every 60 s, logs every 1 s.
  tracesIntervalMs: millis("OTEL_BSP_SCHEDULE_DELAY", 5000),
  metricsIntervalMs: millis("OTEL_METRIC_EXPORT_INTERVAL", 60000),
  logsIntervalMs: millis("OTEL_BLRP_SCHEDULE_DELAY", 1000)
}).pipe(
  Config.map(({ endpoint, serviceName, resourceAttributes, ...rest }) =>
    Option.map(endpoint, (e) => {
      const { "service.name": named, ...attributes } = resourceAttributes
      return {
        ...rest,
        endpoint: e.trim().replace(/\/+$/, ""),
        serviceName: Option.getOrElse(serviceName, () => named ?? "frank"),
        resourceAttributes: attributes
      }
    })
  )
)

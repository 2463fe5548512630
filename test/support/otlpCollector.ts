/**
 * A real OTLP/HTTP endpoint for tests: a node:http server that takes the POSTs an exporter sends
 * to /v1/traces, /v1/metrics and /v1/logs (JSON encoding) and keeps their decoded bodies.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface OtlpAttribute {
  readonly key: string
  readonly value: Record<string, unknown>
}

export interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<OtlpAttribute>
  readonly links: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>
  readonly status: { readonly code: number }
}

/** A log record as exported: ids in hex. */
export interface OtlpLogRecord {
  readonly traceId?: string
  readonly spanId?: string
  readonly body?: unknown
}

/** The three export requests' bodies, as much of them as the tests read. */
export interface OtlpBody {
  readonly resourceSpans?: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<OtlpAttribute> }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<OtlpSpan> }>
  }>
  readonly resourceLogs?: ReadonlyArray<{
    readonly scopeLogs: ReadonlyArray<{ readonly logRecords: ReadonlyArray<OtlpLogRecord> }>
  }>
  readonly resourceMetrics?: ReadonlyArray<{
    readonly scopeMetrics: ReadonlyArray<{ readonly metrics: ReadonlyArray<{ readonly name: string }> }>
  }>
}

export interface OtlpCollector {
  readonly url: string
  /** Raw requests: path, content type and decoded JSON body. */
  readonly requests: Array<{ readonly path: string; readonly contentType: string; readonly body: OtlpBody }>
  readonly spans: () => ReadonlyArray<OtlpSpan>
  readonly logRecords: () => ReadonlyArray<OtlpLogRecord>
  readonly metricNames: () => ReadonlySet<string>
  readonly close: () => Promise<void>
}

/** The plain value of an OTLP attribute (`stringValue`, `intValue`, …), or undefined when absent. */
export const attr = (span: { readonly attributes: ReadonlyArray<OtlpAttribute> }, key: string): unknown => {
  const found = span.attributes.find((a) => a.key === key)
  if (found === undefined) return undefined
  const v = found.value
  const raw = v.stringValue ?? v.intValue ?? v.doubleValue ?? v.boolValue
  return typeof raw === "string" && "intValue" in v ? Number(raw) : raw
}

export const startOtlpCollector = async (): Promise<OtlpCollector> => {
  const requests: OtlpCollector["requests"] = []
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      requests.push({
        path: req.url ?? "",
        contentType: req.headers["content-type"] ?? "",
        body: JSON.parse(text) as OtlpBody
      })
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  const of = (path: string) => requests.filter((r) => r.path === path).map((r) => r.body)
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    spans: () =>
      of("/v1/traces").flatMap((b) => (b.resourceSpans ?? []).flatMap((rs) => rs.scopeSpans.flatMap((s) => s.spans))),
    logRecords: () =>
      of("/v1/logs").flatMap((b) => (b.resourceLogs ?? []).flatMap((rl) => rl.scopeLogs.flatMap((s) => s.logRecords))),
    metricNames: () =>
      new Set(
        of("/v1/metrics").flatMap((b) =>
          (b.resourceMetrics ?? []).flatMap((rm) => rm.scopeMetrics.flatMap((s) => s.metrics.map((m) => m.name)))
        )
      ),
    close: () => new Promise<void>((done) => server.close(() => done()))
  }
}

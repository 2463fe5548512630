/**
 * A real OTLP/HTTP endpoint for tests: a node:http server that takes the POSTs an exporter sends
 * to /v1/traces, /v1/metrics and /v1/logs, in either encoding (`application/json`, or
 * `application/x-protobuf` decoded by otlpProtobuf.ts), and keeps their decoded bodies.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { decodeOtlpProtobuf } from "./otlpProtobuf.js"

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
  /** Raw requests: path, content type and decoded body (the JSON shape for both encodings). */
  readonly requests: Array<{
    readonly path: string
    readonly contentType: string
    readonly body: OtlpBody
    /** Why the body did not decode (answered 400). */
    readonly error?: string
  }>
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
      const bytes = Buffer.concat(chunks)
      const path = req.url ?? ""
      const contentType = req.headers["content-type"] ?? ""
      const protobuf = contentType.startsWith("application/x-protobuf")
      try {
        const body = protobuf ? decodeOtlpProtobuf(path, bytes) : (JSON.parse(bytes.toString("utf8")) as OtlpBody)
        requests.push({ path, contentType, body })
      } catch (e) {
        // Kept, so a test sees what did not decode rather than a missing span.
        requests.push({ path, contentType, body: {}, error: String(e) })
        return void res.writeHead(400).end()
      }
      // The success response in the request's encoding (an empty Export*ServiceResponse).
      res.writeHead(200, { "content-type": protobuf ? "application/x-protobuf" : "application/json" })
      res.end(protobuf ? "" : "{}")
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

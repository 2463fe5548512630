/**
 * OpenTelemetry end to end, once per OTLP/HTTP encoding (`http/json`, and `http/protobuf` decoded
 * against the specification's .proto by test/support/otlpProtobuf.ts): the real host process
 * exports to a real OTLP/HTTP endpoint started here (OTEL_EXPORTER_OTLP_ENDPOINT), and a request
 * that credits, emits and delivers to a real receiver shows up as the spans the issue asks for:
 * the server span in the caller's trace (its `traceparent` honoured) with the ledger command, the
 * outbox write and the fan-out below it, and one client span per delivery attempt — the failed
 * first one and the retry a minute later on the sandbox clock — each linked, not parented, to the
 * span that wrote the event. The Prometheus metrics arrive as OTLP metrics and log records carry trace and span ids.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { attr, type OtlpCollector, type OtlpSpan, startOtlpCollector } from "../support/otlpCollector.js"
import { advanceClock, adminHeaders, newPartner, type Receiver, startReceiver, waitFor } from "./hostClient.js"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"

const SERVER = 2
const CLIENT = 3
const STATUS_ERROR = 2

const ENCODINGS = [
  { protocol: "http/json", contentType: "application/json" },
  { protocol: "http/protobuf", contentType: "application/x-protobuf" }
] as const

describe.each(ENCODINGS)("OpenTelemetry export (OTLP/HTTP, $protocol)", ({ protocol, contentType }) => {
  let collector: OtlpCollector
  let receiver: Receiver
  let host: RunningHost

  beforeAll(async () => {
    collector = await startOtlpCollector()
    receiver = await startReceiver({ status: 500 })
    host = await spawnHost({
      FRANK_ALLOW_PRIVATE_NETWORK: "true",
      FRANK_SANDBOX_CLOCK: "true",
      FRANK_TRUST_PROXY: "true",
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=e2e,service.name=ignored",
      OTEL_SERVICE_NAME: "frank-e2e",
      OTEL_BSP_SCHEDULE_DELAY: "200",
      OTEL_BLRP_SCHEDULE_DELAY: "200",
      OTEL_METRIC_EXPORT_INTERVAL: "500"
    })
  }, 120_000)

  afterAll(async () => {
    const code = await host?.stop()
    await receiver?.close()
    await collector?.close()
    expect(code).toBe(0)
  }, 60_000)

  const spanNamed = (name: string, where: (s: OtlpSpan) => boolean = () => true) =>
    waitFor(`span ${name}`, () => collector.spans().find((s) => s.name === name && where(s)), { timeoutMs: 15_000 })

  it("traces a credit from the request through the outbox to each delivery attempt, linked to the write", async () => {
    const p = await newPartner(host, "Traced")
    const created = await call(host, "POST", "/v1/webhooks/endpoints", { headers: p.key, body: { url: receiver.url } })
    expect(created.status, created.text).toBe(201)

    // A crossing to emit: the alert is triggered at 0 available, and the credit lifts it above.
    const alert = await call(host, "POST", "/v1/billing/alerts", { headers: p.key, body: { thresholdFranks: 10 } })
    expect(alert.status, alert.text).toBe(201)

    // The caller's trace: the host's server span must join it.
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
    const callerSpanId = "00f067aa0ba902b7"
    const credit = await call(host, "POST", `/admin/v1/partners/${p.id}/credits`, {
      headers: { ...adminHeaders(host), traceparent: `00-${traceId}-${callerSpanId}-01` },
      body: { amountFranks: 25, kind: "bonus" }
    })
    expect(credit.status, credit.text).toBe(201)
    await receiver.nth(1)

    const server = await spanNamed("http.server POST", (s) => s.traceId === traceId)
    expect(server.parentSpanId).toBe(callerSpanId)
    expect(server.kind).toBe(SERVER)
    expect(attr(server, "http.request.method")).toBe("POST")
    expect(attr(server, "http.route")).toBe("/admin/v1/partners/:id/credits")
    expect(attr(server, "http.response.status_code")).toBe(201)

    const ledger = await spanNamed("frank.ledger.credit", (s) => s.traceId === traceId)
    expect(attr(ledger, "frank.partner_id")).toBe(p.id)
    const write = await spanNamed("frank.outbox.write", (s) => s.traceId === traceId)
    expect(attr(write, "frank.partner_id")).toBe(p.id)
    const fanOut = await spanNamed("frank.webhook.fan_out", (s) => s.parentSpanId === write.spanId)
    expect(fanOut.traceId).toBe(traceId)
    expect(attr(fanOut, "frank.webhook.deliveries")).toBe(1)
    const eventId = attr(write, "frank.event_id")
    expect(receiver.received[0]?.headers["x-service-event-id"]).toBe(eventId)

    // The first attempt failed (500): its own trace, linked to the write.
    const first = await spanNamed("POST", (s) => s.kind === CLIENT && attr(s, "frank.event_id") === eventId)
    expect(first.traceId).not.toBe(traceId)
    expect(first.parentSpanId ?? "").toBe("")
    expect(first.links).toEqual([expect.objectContaining({ traceId, spanId: write.spanId })])
    expect(attr(first, "url.full")).toBe(receiver.url)
    expect(attr(first, "server.address")).toBe("127.0.0.1")
    expect(attr(first, "http.response.status_code")).toBe(500)
    expect(attr(first, "error.type")).toBe("500")
    expect(attr(first, "http.request.resend_count")).toBeUndefined()
    expect(first.status.code).toBe(STATUS_ERROR)

    // The retry, a minute later by the host's clock, links back to the same write.
    receiver.setReply({ status: 204 })
    await advanceClock(host, 61)
    await receiver.nth(2)
    const retry = await spanNamed(
      "POST",
      (s) => s.kind === CLIENT && attr(s, "frank.event_id") === eventId && s.spanId !== first.spanId
    )
    expect(retry.traceId).not.toBe(first.traceId)
    expect(retry.links).toEqual([expect.objectContaining({ traceId, spanId: write.spanId })])
    expect(attr(retry, "http.request.resend_count")).toBe(1)
    expect(attr(retry, "http.response.status_code")).toBe(204)
    expect(attr(retry, "error.type")).toBeUndefined()
  }, 60_000)

  it("names the partner on partner API spans, exports the metrics and puts trace ids on log records", async () => {
    const p = await newPartner(host, "Named")
    const listed = await call(host, "GET", "/v1/webhooks/endpoints", { headers: p.key })
    expect(listed.status, listed.text).toBe(200)
    const server = await spanNamed(
      "http.server GET",
      (s) => attr(s, "http.route") === "/v1/webhooks/endpoints" && attr(s, "frank.partner_id") === p.id
    )
    expect(attr(server, "http.response.status_code")).toBe(200)

    // The access log line of that request, written inside its span.
    const line = await waitFor(
      "the request's log record",
      () => collector.logRecords().find((r) => r.spanId === server.spanId),
      { timeoutMs: 15_000 }
    )
    expect(line.traceId).toBe(server.traceId)

    const names = await waitFor(
      "the HTTP request counter as an OTLP metric",
      () => {
        const n = collector.metricNames()
        return n.has("frank_http_requests_total") ? n : undefined
      },
      { timeoutMs: 15_000 }
    )
    expect(names.has("frank_http_request_duration_seconds")).toBe(true)
    expect(names.has("process_cpu_seconds_total")).toBe(true)

    // The resource: OTEL_SERVICE_NAME wins over service.name in the attributes.
    const resource = collector.requests.find((r) => r.path === "/v1/traces")?.body.resourceSpans?.[0]?.resource
    expect(resource).toBeDefined()
    if (resource === undefined) return
    expect(resource.attributes.filter((a) => a.key === "service.name").map((a) => a.value.stringValue)).toEqual(
      expect.arrayContaining(["frank-e2e"])
    )
    expect(resource.attributes.some((a) => a.key === "service.name" && a.value.stringValue !== "frank-e2e")).toBe(false)
    expect(attr(resource, "deployment.environment")).toBe("e2e")
    expect(collector.requests.map((r) => r.error).filter((e) => e !== undefined)).toEqual([])
    expect(collector.requests.every((r) => r.contentType.startsWith(contentType))).toBe(true)
  }, 60_000)
})

/**
 * An embedder's own OpenTelemetry: `createFrank({ tracerProvider })` with the SDK's provider and an
 * in-memory exporter. A credit made inside the app's active span is traced in the app's trace (the
 * ledger command and the outbox write below the app's span), the worker's delivery attempt is a
 * client span linked to that write, and a request served by `frank.fetch` has its server span.
 */
import { context, SpanKind } from "@opentelemetry/api"
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks"
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor
} from "@opentelemetry/sdk-trace-base"
import { createFrank, type Frank } from "@frank/host/embed"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startReceiver } from "./support.js"

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })

const spanWhere = async (what: string, where: (s: ReadableSpan) => boolean): Promise<ReadableSpan> => {
  for (let i = 0; i < 100; i++) {
    const found = exporter.getFinishedSpans().find(where)
    if (found !== undefined) return found
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`no span ${what} among ${exporter.getFinishedSpans().map((s) => s.name)}`)
}

describe("createFrank with the embedder's tracer provider", () => {
  let frank: Frank
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  beforeAll(async () => {
    // The app's context propagation, as its SDK setup registers it.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
    receiver = await startReceiver()
    frank = await createFrank({
      embedded: "memory",
      pepper: "test-pepper-0123456789abcdef",
      publicBaseUrl: "https://app.example",
      allowPrivateNetwork: true,
      worker: { pollIntervalMs: 100 },
      tracerProvider: provider
    })
  })
  afterAll(async () => {
    await frank?.close()
    await receiver?.close()
    await provider.shutdown()
    context.disable()
  })

  it("traces a credit in the app's trace and its delivery attempt linked to the write", async () => {
    const partner = await frank.partners.create("Traced shop")
    await frank.endpoints.create(partner.id, { url: receiver.url, eventTypes: ["billing.topup.confirmed"] })
    await frank.worker.start()

    const checkout = await provider.getTracer("shop").startActiveSpan("checkout", async (span) => {
      await frank.ledger.credit(partner.id, { kind: "topup", amountMinor: 5_000, reference: "order-1" })
      span.end()
      return span.spanContext()
    })
    await receiver.waitFor(1, 15_000)

    const ledger = await spanWhere("frank.ledger.credit", (s) => s.name === "frank.ledger.credit")
    expect(ledger.spanContext().traceId).toBe(checkout.traceId)
    expect(ledger.instrumentationScope.name).toBe("frank")
    expect(ledger.attributes["frank.partner_id"]).toBe(partner.id)
    const write = await spanWhere("frank.outbox.write", (s) => s.name === "frank.outbox.write")
    expect(write.spanContext().traceId).toBe(checkout.traceId)
    // Below the app's span: following the parents from the write reaches `checkout`.
    const ancestors = new Set<string>()
    for (let s: ReadableSpan | undefined = write; s !== undefined; ) {
      const parent: string | undefined = s.parentSpanContext?.spanId
      if (parent === undefined) break
      ancestors.add(parent)
      s = exporter.getFinishedSpans().find((x) => x.spanContext().spanId === parent)
    }
    expect(ancestors).toContain(checkout.spanId)

    const eventId = write.attributes["frank.event_id"]
    const attempt = await spanWhere(
      "the delivery attempt",
      (s) => s.kind === SpanKind.CLIENT && s.name === "POST" && s.attributes["frank.event_id"] === eventId
    )
    expect(attempt.spanContext().traceId).not.toBe(checkout.traceId)
    expect(attempt.links.map((l) => l.context.spanId)).toEqual([write.spanContext().spanId])
    expect(attempt.attributes["url.full"]).toBe(receiver.url)
    expect(attempt.attributes["http.response.status_code"]).toBe(200)
    expect(receiver.received[0]?.headers["x-service-event-id"]).toBe(eventId)
  })

  it("gives a request served by frank.fetch its server span", async () => {
    const partner = await frank.partners.create("Fetched")
    const key = (await frank.keys.issue(partner.id, {})).raw
    const response = await frank.fetch(
      new Request("https://app.example/v1/billing/balance", { headers: { authorization: `Bearer ${key}` } })
    )
    expect(response.status).toBe(200)
    const server = await spanWhere(
      "the server span",
      (s) => s.kind === SpanKind.SERVER && s.attributes["url.path"] === "/v1/billing/balance"
    )
    expect(server.attributes["http.request.method"]).toBe("GET")
    expect(server.attributes["http.response.status_code"]).toBe(200)
  })
})

/**
 * What a delivery attempt's span says (HTTP client conventions) and the stored trace context it
 * links to. The spans themselves are checked end to end in test/e2e/opentelemetry.e2e.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Option, Tracer } from "effect"
import { spanOfTraceParent, traceParentOf } from "../src/events/traceParent.js"
import { errorType, redactedUrl } from "../src/webhooks/internal/worker/batch/attemptSpans.js"

describe("attempt spans", () => {
  it("redact user info and query values from url.full and name the server", () => {
    expect(redactedUrl("https://user:pw@hooks.example.com/in?token=s3cret&x=1&x=2")).toEqual({
      full: "https://REDACTED@hooks.example.com/in?token=REDACTED&x=REDACTED",
      host: "hooks.example.com",
      port: 443
    })
    expect(redactedUrl("http://127.0.0.1:8080/hook")).toEqual({
      full: "http://127.0.0.1:8080/hook",
      host: "127.0.0.1",
      port: 8080
    })
  })

  it("set error.type to the status code or what kept the answer away, and nothing on success", () => {
    expect(errorType({ _tag: "Answered", status: 204 })).toBeUndefined()
    expect(errorType({ _tag: "Answered", status: 302 })).toBe("302")
    expect(errorType({ _tag: "Answered", status: 503 })).toBe("503")
    expect(errorType({ _tag: "TimedOut" })).toBe("timeout")
    expect(errorType({ _tag: "ConnectionFailed", message: "ECONNREFUSED" })).toBe("connection_failed")
    expect(errorType({ _tag: "AddressRefused", message: "private" })).toBe("address_refused")
  })
})

describe("the stored trace context", () => {
  const span = Tracer.externalSpan({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" })

  it("round-trips a recorded span through its traceparent", () => {
    const stored = traceParentOf(span)
    expect(stored).toBe("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
    expect(Option.map(spanOfTraceParent(stored), (s) => [s.traceId, s.spanId])).toEqual(
      Option.some([span.traceId, span.spanId])
    )
  })

  it("stores nothing for an unrecorded span (tracing off) and links nothing for a bad value", () => {
    expect(traceParentOf(Tracer.externalSpan({ traceId: "noop", spanId: "noop" }))).toBeUndefined()
    expect(traceParentOf(Tracer.externalSpan({ ...span, sampled: false }))).toBeUndefined()
    expect(spanOfTraceParent(null)).toEqual(Option.none())
    expect(spanOfTraceParent("00-xyz-abc-01")).toEqual(Option.none())
  })
})

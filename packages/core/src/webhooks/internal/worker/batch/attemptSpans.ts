/**
 * A client span per delivery attempt, following OpenTelemetry's HTTP client conventions, linked —
 * not parented — to the span that wrote the event (messaging conventions): the attempt, perhaps a
 * retry hours later on another host, is a trace of its own that points back at the request which
 * caused it. Spans are made only while Effect's tracer is on (the reference host turns it on
 * with an OTLP endpoint), so the hot path pays nothing otherwise. The transport reports outcomes
 * through synchronous callbacks, so a span is ended there by hand.
 */
import { type Clock, Effect, Exit, FiberRef, Option, type Tracer } from "effect"
import { spanOfTraceParent } from "../../../../events/traceParent.js"
import type { ClaimedDelivery } from "../../../Delivery.js"
import { describeOutcome } from "../../../transport/finishedAttempt.js"
import { type AttemptOutcome, type AttemptRequest, isSuccess } from "../../../transport/WebhookTransport.js"

/** The URL as a span may show it: user info and query values redacted (they often hold tokens). */
export const redactedUrl = (raw: string): { readonly full: string; readonly host: string; readonly port: number } => {
  const url = new URL(raw)
  if (url.username !== "" || url.password !== "") {
    url.username = "REDACTED"
    url.password = ""
  }
  for (const key of [...new Set(url.searchParams.keys())]) url.searchParams.set(key, "REDACTED")
  const port = url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80
  return { full: url.toString(), host: url.hostname, port }
}

/** The attributes an attempt's span starts with. */
export const attemptAttributes = (claim: ClaimedDelivery, request: AttemptRequest): Record<string, unknown> => {
  const url = redactedUrl(request.url)
  const attributes: Record<string, unknown> = {
    "http.request.method": "POST",
    "url.full": url.full,
    "server.address": url.host,
    "server.port": url.port,
    "frank.partner_id": claim.partnerId,
    "frank.delivery_id": claim.id,
    "frank.event_id": claim.eventId,
    "frank.event_type": claim.eventType,
    "frank.endpoint_id": claim.endpointId
  }
  // The conventions set it on retries only: the attempt count includes this one.
  if (claim.state.attempts > 1) attributes["http.request.resend_count"] = claim.state.attempts - 1
  return attributes
}

/** `error.type` for a failed attempt (the status code, or what kept the answer away); none on success. */
export const errorType = (outcome: AttemptOutcome): string | undefined => {
  if (isSuccess(outcome)) return undefined
  switch (outcome._tag) {
    case "Answered":
      return String(outcome.status)
    case "TimedOut":
      return "timeout"
    case "ConnectionFailed":
      return "connection_failed"
    case "AddressRefused":
      return "address_refused"
  }
}

/** Ends the span of request `j` with its outcome; a no-op when tracing is off. */
export type EndAttemptSpan = (j: number, outcome: AttemptOutcome) => void

const noSpans: EndAttemptSpan = () => {}

/** Starts one span per request (`claimOf(j)`: its claim); answers how to end them. */
export const startAttemptSpans = (
  requests: ReadonlyArray<AttemptRequest>,
  claimOf: (j: number) => ClaimedDelivery,
  clock: Clock.Clock
): Effect.Effect<EndAttemptSpan> =>
  Effect.flatMap(FiberRef.get(FiberRef.currentTracerEnabled), (enabled) => {
    if (!enabled) return Effect.succeed(noSpans)
    return Effect.map(
      Effect.forEach(requests, (request, j) => {
        const claim = claimOf(j)
        const writer = spanOfTraceParent(claim.traceParent)
        const links: Array<Tracer.SpanLink> = Option.isSome(writer)
          ? [{ _tag: "SpanLink", span: writer.value, attributes: { "frank.link": "event.write" } }]
          : []
        return Effect.makeSpan("POST", {
          kind: "client",
          root: true,
          links,
          attributes: attemptAttributes(claim, request)
        })
      }),
      (spans): EndAttemptSpan =>
        (j, outcome) => {
          const span = spans[j]
          if (span === undefined) return
          if (outcome._tag === "Answered") span.attribute("http.response.status_code", outcome.status)
          const type = errorType(outcome)
          if (type !== undefined) span.attribute("error.type", type)
          const exit = type === undefined ? Exit.void : Exit.fail(describeOutcome(outcome).error ?? type)
          span.end(clock.unsafeCurrentTimeNanos(), exit)
        }
    )
  })

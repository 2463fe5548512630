/**
 * The trace context an event carries from the span that wrote it to its delivery attempts, as a
 * W3C `traceparent` string stored with the event: a retry hours later, on another host, links its
 * span to the writer's (messaging conventions: a link, not a parent — the attempt is its own
 * trace). Parsing is the platform's, the same that reads an incoming request's header.
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import { Effect, Option, type Tracer } from "effect"
import { currentSpanOrUndefined } from "../internal/spans.js"

const w3c = (traceParent: string) => HttpTraceContext.w3c(Headers.unsafeFromRecord({ traceparent: traceParent }))

/** The `traceparent` of `span`, or undefined for a span that is not recorded (tracing off, unsampled). */
export const traceParentOf = (span: Tracer.AnySpan): string | undefined => {
  if (!span.sampled) return undefined
  const traceParent = `00-${span.traceId}-${span.spanId}-01`
  // Effect's no-op span (tracer off) has ids "noop": nothing worth storing.
  return Option.isSome(w3c(traceParent)) ? traceParent : undefined
}

/** The `traceparent` of the calling fiber's current span, if it has a recorded one. */
export const currentTraceParent: Effect.Effect<string | undefined> = Effect.map(currentSpanOrUndefined, (s) =>
  s === undefined ? undefined : traceParentOf(s)
)

/** The span a stored `traceparent` names, for a link; none when absent or malformed. */
export const spanOfTraceParent = (traceParent: string | null | undefined): Option.Option<Tracer.ExternalSpan> =>
  traceParent === null || traceParent === undefined ? Option.none() : w3c(traceParent)

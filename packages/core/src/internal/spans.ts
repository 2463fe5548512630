/**
 * Span attributes at no cost when there is no span. `Effect.annotateCurrentSpan` and
 * `Effect.currentSpan` find a missing span by failing with a `NoSuchElementException`, an `Error`
 * whose stack is captured (about 13 µs, against 0.3 µs for a context lookup), and that is every
 * call while tracing is off: the reference host's default (docs/performance.md, issue 36).
 */
import { Context, Effect, Tracer } from "effect"

/** Whether the fiber's context holds a recorded span (not an external parent, not none). */
const hasSpan = (context: Context.Context<never>): boolean =>
  Context.getOption(context, Tracer.ParentSpan).pipe((s) => s._tag === "Some" && s.value._tag === "Span")

/** `Effect.annotateCurrentSpan`, skipped without a span. */
export const annotateSpan = (attributes: Record<string, unknown>): Effect.Effect<void> =>
  Effect.flatMap(Effect.context<never>(), (context) =>
    hasSpan(context) ? Effect.annotateCurrentSpan(attributes) : Effect.void
  )

/** `Effect.option(Effect.currentSpan)` without the failure when there is none. */
export const currentSpanOrUndefined: Effect.Effect<Tracer.Span | undefined> = Effect.flatMap(
  Effect.context<never>(),
  (context) =>
    hasSpan(context) ? Effect.orElseSucceed(Effect.currentSpan, () => undefined) : Effect.succeed(undefined)
)

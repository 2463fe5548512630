/**
 * Span attributes set only where there is a span: inside one they land on it; with tracing off
 * (no span) the helpers answer at once instead of failing and recovering.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Tracer } from "effect"
import { annotateSpan, currentSpanOrUndefined } from "../src/internal/spans.js"

describe("span helpers", () => {
  it.effect("annotate the current span and name it", () =>
    Effect.gen(function* () {
      const span = yield* Effect.gen(function* () {
        yield* annotateSpan({ "frank.partner_id": "p_1", "frank.ledger.replayed": false })
        return yield* currentSpanOrUndefined
      }).pipe(Effect.withSpan("work"))
      expect(span?.name).toBe("work")
      expect(span?.attributes.get("frank.partner_id")).toBe("p_1")
      expect(span?.attributes.get("frank.ledger.replayed")).toBe(false)
    })
  )

  it.effect("do nothing and name no span outside one, or with the tracer off", () =>
    Effect.gen(function* () {
      yield* annotateSpan({ "frank.partner_id": "p_1" })
      expect(yield* currentSpanOrUndefined).toBeUndefined()
      const off = yield* Effect.gen(function* () {
        yield* annotateSpan({ "frank.partner_id": "p_1" })
        return yield* currentSpanOrUndefined
      }).pipe(Effect.withSpan("work"), Effect.withTracerEnabled(false))
      // The tracer off makes a no-op span, which is a Span: annotating it records nothing.
      expect(off === undefined || off.attributes.size === 0).toBe(true)
    })
  )

  it.effect("leave an external parent alone", () =>
    Effect.gen(function* () {
      const parent = Tracer.externalSpan({ traceId: "t", spanId: "s" })
      const named = yield* Effect.zipRight(annotateSpan({ a: 1 }), currentSpanOrUndefined).pipe(
        Effect.withParentSpan(parent)
      )
      expect(named).toBeUndefined()
    })
  )
})

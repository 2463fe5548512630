/**
 * The rate limiter service: which rules apply (policy), counting (store), and what to answer
 * (verdict and headers).
 */
import { Clock, Context, Effect, Layer, Schema } from "effect"
import type { StoreError } from "../StoreError.js"
import { type LimitVerdict, tightest, verdict } from "./FixedWindow.js"
import { type RateLimitConfig, type RequestIdentity, rulesFor } from "./RateLimitPolicy.js"
import { RateLimitStore } from "./RateLimitStore.js"

export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  code: Schema.optionalWith(Schema.Literal("RATE_LIMITED"), { default: () => "RATE_LIMITED" as const }),
  status: Schema.optionalWith(Schema.Literal(429), { default: () => 429 as const }),
  message: Schema.String,
  retryAfterSeconds: Schema.Number,
  policy: Schema.String,
  limit: Schema.Number
}) {}

export interface RateDecision {
  readonly allowed: boolean
  /** The verdict the response headers report. */
  readonly reported: LimitVerdict | undefined
  readonly verdicts: ReadonlyArray<LimitVerdict>
}

/** `RateLimit-*` headers (IETF draft names), plus `Retry-After` when refused. */
export const rateLimitHeaders = (d: RateDecision): Record<string, string> => {
  const v = d.reported
  if (v === undefined) return {}
  const headers: Record<string, string> = {
    "ratelimit-limit": String(v.limit),
    "ratelimit-remaining": String(v.remaining),
    "ratelimit-reset": String(v.resetSeconds)
  }
  if (!d.allowed) headers["retry-after"] = String(v.resetSeconds)
  return headers
}

export class RateLimiter extends Context.Tag("@frank/core/RateLimiter")<
  RateLimiter,
  { readonly check: (req: RequestIdentity) => Effect.Effect<RateDecision, StoreError> }
>() {
  static readonly layer = (config: RateLimitConfig) =>
    Layer.effect(
      RateLimiter,
      Effect.gen(function* () {
        const store = yield* RateLimitStore
        return {
          check: (req) => {
            const rules = rulesFor(req, config)
            return Effect.flatMap(Clock.currentTimeMillis, (now) =>
              Effect.map(store.hit(rules, now), (states): RateDecision => {
                const verdicts = states.map((s) => verdict(s, now))
                return { allowed: verdicts.every((v) => v.allowed), reported: tightest(verdicts), verdicts }
              })
            )
          }
        }
      })
    )
}

export const rateLimitedError = (d: RateDecision): RateLimited => {
  const v = d.reported!
  return new RateLimited({
    message: `rate limit exceeded (${v.rule.name}: ${v.limit} requests per ${v.rule.windowMs / 1000} s); retry after ${v.resetSeconds} s`,
    retryAfterSeconds: v.resetSeconds,
    policy: v.rule.name,
    limit: v.limit
  })
}

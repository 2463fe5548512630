/**
 * The rate limiter service: which rules apply (policy), counting (store), and what to answer
 * (verdict and headers).
 */
import { Clock, Context, Effect, Layer, Schema } from "effect"
import type { StoreError } from "../StoreError.js"
import { type LimitVerdict, tightest, verdict } from "./FixedWindow.js"
import { type RateLimitConfig, type RequestIdentity, rulesFor } from "./RateLimitPolicy.js"
import { RateLimitStore } from "./RateLimitStore.js"
import { limitField, policyField, RATE_LIMIT_EXPOSED_HEADERS } from "./rateLimitFields.js"

const EXPOSED = [...RATE_LIMIT_EXPOSED_HEADERS, "X-Request-Id"].join(", ")

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

/**
 * The draft's `RateLimit-Policy` and `RateLimit` fields (rateLimitFields.ts), the earlier drafts'
 * `RateLimit-Limit/-Remaining/-Reset` of the reported limit (kept for clients that read them),
 * and `Retry-After` when refused.
 */
export const rateLimitHeaders = (d: RateDecision): Record<string, string> => {
  const v = d.reported
  if (v === undefined) return {}
  const headers: Record<string, string> = {
    "ratelimit-policy": policyField(d.verdicts),
    ratelimit: limitField(v),
    "ratelimit-limit": String(v.limit),
    "ratelimit-remaining": String(v.remaining),
    "ratelimit-reset": String(v.resetSeconds),
    // Frank sets no Access-Control-Allow-Origin itself; whatever CORS layer admits a browser
    // origin, the browser then lets its script read these fields too.
    "access-control-expose-headers": EXPOSED
  }
  if (!d.allowed) headers["retry-after"] = String(v.resetSeconds)
  return headers
}

/** The rate limiter service: counts a request and says whether it may pass. */
export class RateLimiter extends Context.Tag("@frank/core/RateLimiter")<
  RateLimiter,
  {
    /** Counts the request against every rule that applies and says whether it may pass. */
    readonly check: (req: RequestIdentity) => Effect.Effect<RateDecision, StoreError>
  }
>() {
  /** The rate limiter with these limits, counting in the `RateLimitStore`. */
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

/** The message of a refusal by `v`, `resetSeconds` before its window ends. */
export const rateLimitedMessage = (v: LimitVerdict, resetSeconds: number): string =>
  `rate limit exceeded (${v.rule.name}: ${v.limit} requests per ${v.rule.windowMs / 1000} s); retry after ${resetSeconds} s`

export const rateLimitedError = (d: RateDecision): RateLimited => {
  const v = d.reported!
  return new RateLimited({
    message: rateLimitedMessage(v, v.resetSeconds),
    retryAfterSeconds: v.resetSeconds,
    policy: v.rule.name,
    limit: v.limit
  })
}

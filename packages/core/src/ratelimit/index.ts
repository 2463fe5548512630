/**
 * The `RateLimit` namespace: fixed-window limits per partner and key, their configuration,
 * the store port and the `RateLimiter` service with its response headers.
 */
export { type LimitRule, type LimitState, type LimitVerdict, windowStart } from "./FixedWindow.js"
export {
  countsAgainstKeyLimit,
  defaultRateLimitConfig,
  type RateLimitConfig,
  scaleRateLimits
} from "./RateLimitPolicy.js"
export { RateLimiter, rateLimitedMessage, rateLimitHeaders } from "./RateLimiter.js"
export { BufferedRateLimitStore } from "./BufferedRateLimitStore.js"
export { type CounterIncrement, type CounterWindow, SharedRateLimitCounters } from "./SharedRateLimitCounters.js"
export { RateLimitRefusals, type RateLimitRefusalsShape } from "./RateLimitRefusals.js"
export { limitField, policyField, RATE_LIMIT_EXPOSED_HEADERS } from "./rateLimitFields.js"

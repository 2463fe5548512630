export * from "./FixedWindow.js"
export * from "./RateLimiter.js"
export * from "./RateLimitPolicy.js"
export * from "./RateLimitStore.js"

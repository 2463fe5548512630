/**
 * An optional listener told of every request answered 429 by a rate limit, with the limit that
 * refused it and the route template (never the concrete path, so it can label metrics). For a
 * refusal by the key's own per-key limit it also gets the key: within a fixed window a counter
 * only grows, so every later request of that key on a route the limit counts is refused too
 * until the window ends, and a host can answer those before they reach the API.
 */
import { Context } from "effect"
import type { KeyId, PartnerId } from "../EntityIds.js"
import type { LimitVerdict } from "./FixedWindow.js"

export interface RefusedKey {
  /** The key as the client presented it. */
  readonly raw: string
  readonly id: KeyId
  readonly partnerId: PartnerId
  /** The key's own expiry (epoch ms), if it has one. */
  readonly expiresAt: number | null
}

export interface RateLimitRefusal {
  /** The route template (`/v1/billing/api-keys/:id`). */
  readonly route: string
  /** The limit that refused the request. */
  readonly verdict: LimitVerdict
  /** The refused answer's `RateLimit-Policy` value: every limit that applied. */
  readonly policy?: string | undefined
  /** Present when the per-key limit (`api_key`) refused it. */
  readonly key?: RefusedKey | undefined
}

/** What a refusal listener implements: told synchronously of each 429 as it is answered. */
export interface RateLimitRefusalsShape {
  /** Called once per refused request (for metrics and logs); must not throw. */
  readonly refused: (refusal: RateLimitRefusal) => void
}

/** The optional listener told of every request a rate limit refused (the host counts and short-cuts them). */
export class RateLimitRefusals extends Context.Tag("@frank/core/RateLimitRefusals")<
  RateLimitRefusals,
  RateLimitRefusalsShape
>() {}

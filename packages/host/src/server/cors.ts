/**
 * Cross-origin access for browser clients of the host's HTTP API: off unless FRANK_CORS_ORIGINS
 * lists origins. For a listed origin the host answers the preflight (OPTIONS, 204) and marks every
 * answer readable by it, exposing the fields a client acts on: the RateLimit fields and
 * Retry-After (when to send again), Idempotent-Replayed (a retry got the first answer) and
 * X-Request-Id. No credentials: the cabinet's cookie never authenticates a cross-origin call.
 * Refusals written before the API's stack (413, 415, a refused key's early 429, a 408 for a body
 * still arriving) carry the same fields (`earlyCors`); a 408 or 431 for headers that never
 * arrived whole cannot: nobody knows the origin yet.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { RateLimit } from "@frank/core"
import { Layer } from "effect"

/** What a listed origin's scripts may read of an answer. */
export const CORS_EXPOSED_HEADERS: ReadonlyArray<string> = [
  ...RateLimit.RATE_LIMIT_EXPOSED_HEADERS,
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "Idempotent-Replayed",
  "X-Request-Id"
]

/** The request headers a listed origin may send: the API's authentication, body type and retries. */
export const CORS_ALLOWED_HEADERS: ReadonlyArray<string> = [
  "Authorization",
  "Content-Type",
  "X-Api-Key",
  "Idempotency-Key",
  "X-Request-Id"
]

/** The CORS middleware for `origins` (exact `scheme://host[:port]`), none when the list is empty. */
export const corsLayer = (origins: ReadonlyArray<string>): Layer.Layer<never> => {
  if (origins.length === 0) return Layer.empty
  const allowed = new Set(origins)
  return HttpApiBuilder.middlewareCors({
    // A predicate, not the list: an answer names the one origin that asked, and only a listed one.
    allowedOrigins: (origin) => allowed.has(origin),
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
    credentials: false
  })
}

/**
 * Marks the answer to a listed origin's request readable by it the moment the request arrives,
 * before any refusal can be written: node:http merges these into whatever `writeHead` sends, and
 * the API's own CORS middleware sets the same values for the answers it writes. None when the
 * list is empty.
 */
export const earlyCors = (
  origins: ReadonlyArray<string>
): ((request: IncomingMessage, response: ServerResponse) => void) | undefined => {
  if (origins.length === 0) return undefined
  const allowed = new Set(origins)
  const exposed = CORS_EXPOSED_HEADERS.join(", ")
  return (request, response) => {
    response.setHeader("vary", "Origin")
    const origin = request.headers.origin
    if (origin === undefined || !allowed.has(origin)) return
    response.setHeader("access-control-allow-origin", origin)
    response.setHeader("access-control-expose-headers", exposed)
  }
}

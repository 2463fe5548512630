/**
 * The security middlewares: API keys and cabinet sessions, with scope checks and rate limits.
 * Every request re-reads its credential from the store, so revocation and expiry apply on the
 * next request on every host instance.
 *
 * Both API-key schemes (`X-API-Key`, `Authorization: Bearer`) run the same function, which reads
 * the request itself: the platform tries schemes in order and keeps the last failure, and reading
 * both headers in one place keeps the precise error (expired, revoked, legacy) instead of
 * "missing bearer".
 */
import { HttpApp, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Context, Effect, Layer, Option } from "effect"
import { Access } from "../access/Access.js"
import type { Scope } from "../access/Scope.js"
import { type RateDecision, RateLimiter, rateLimitedError, rateLimitHeaders } from "../ratelimit/RateLimiter.js"
import type { RequestIdentity } from "../ratelimit/RateLimitPolicy.js"
import { apiError } from "./ApiError.js"
import { toApiError } from "./domainErrors.js"
import { PartnerApi } from "./PartnerApi.js"
import { type RouteFacts, routeKey, routeTable } from "./routeTable.js"
import { ApiKeyAuth, CurrentApiKey, CurrentSession, SessionAuth } from "./Security.js"

export interface SecurityConfig {
  /** Take the client IP from the first `X-Forwarded-For` hop (behind a trusted proxy). */
  readonly trustProxy: boolean
}

export class SecuritySettings extends Context.Tag("@frank/core/SecuritySettings")<SecuritySettings, SecurityConfig>() {}

const clientIp = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean): string => {
  if (trustProxy) {
    const forwarded = request.headers["x-forwarded-for"]?.split(",")[0]?.trim()
    if (forwarded !== undefined && forwarded.length > 0) return forwarded
  }
  return Option.getOrElse(request.remoteAddress, () => "unknown")
}

const rawApiKey = (request: HttpServerRequest.HttpServerRequest): string => {
  const header = request.headers["x-api-key"]
  if (header !== undefined && header.length > 0) return header.trim()
  const auth = request.headers.authorization
  if (auth !== undefined && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, "").trim()
  return ""
}

const withRateLimitHeaders = (decision: RateDecision) =>
  HttpApp.appendPreResponseHandler((_req, res) => Effect.succeed(HttpServerResponse.setHeaders(res, rateLimitHeaders(decision))))

const makeGuards = Effect.gen(function* () {
  const access = yield* Access
  const limiter = yield* RateLimiter
  const { trustProxy } = yield* SecuritySettings
  const table = routeTable(PartnerApi)

  const requestContext = Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const route = yield* HttpRouter.RouteContext
    const facts: RouteFacts | undefined = table.get(routeKey(request.method, route.route.path))
    return { request, path: route.route.path, facts, ip: clientIp(request, trustProxy) }
  })

  /** Counts the request against every applicable limit; refuses with 429 when any is exhausted. */
  const limit = (identity: RequestIdentity) =>
    Effect.gen(function* () {
      const decision = yield* limiter.check(identity).pipe(Effect.orDie)
      yield* withRateLimitHeaders(decision)
      if (!decision.allowed) {
        const e = rateLimitedError(decision)
        return yield* Effect.fail(apiError(429, e.code, e.message))
      }
    })

  const apiKey = Effect.gen(function* () {
    const { request, path, facts, ip } = yield* requestContext
    const base = { method: request.method, route: path, ip }
    const key = yield* access.authenticateKey(rawApiKey(request)).pipe(
      Effect.catchTag("StoreError", Effect.die),
      // Failed authentications count against the per-IP limit too (key guessing).
      Effect.tapError(() => limit(base).pipe(Effect.ignore)),
      Effect.mapError(toApiError)
    )
    yield* limit({ ...base, apiKeyId: key.id, partnerId: key.partnerId })
    const required = facts?.requiredScope
    if (key.access === "restricted" && required !== undefined && (required === "full" || !key.scopes.includes(required as Scope)))
      return yield* Effect.fail(
        apiError(
          403,
          "API_KEY_SCOPE_REQUIRED",
          required === "full" ? "this operation needs a full-access key; no scope opens it" : `this operation needs the scope ${required}`
        )
      )
    return { partnerId: key.partnerId, keyId: key.id, access: key.access, scopes: key.access === "full" ? [] : key.scopes }
  })

  const session = Effect.gen(function* () {
    const { request, path, ip } = yield* requestContext
    const base = { method: request.method, route: path, ip }
    const token = request.cookies.service_token ?? ""
    if (token.length === 0 && rawApiKey(request).length > 0) {
      yield* limit(base)
      return yield* Effect.fail(apiError(403, "SESSION_REQUIRED_NOT_API_KEY", "this operation needs the cabinet session (cookie service_token); API keys cannot call it"))
    }
    const found = yield* access.authenticateSession(token).pipe(
      Effect.catchTag("StoreError", Effect.die),
      Effect.tapError(() => limit(base).pipe(Effect.ignore)),
      Effect.mapError(toApiError)
    )
    yield* limit({ ...base, sessionPartnerId: found.partnerId, partnerId: found.partnerId })
    return found
  })

  return { apiKey, session }
})

export const ApiKeyAuthLive = Layer.effect(
  ApiKeyAuth,
  Effect.map(makeGuards, ({ apiKey }) => ({ apiKey: () => apiKey, bearer: () => apiKey }))
)

export const SessionAuthLive = Layer.effect(
  SessionAuth,
  Effect.map(makeGuards, ({ session }) => ({ session: () => session }))
)

/** Both security middlewares; needs Access, RateLimiter and SecuritySettings. */
export const SecurityLive = Layer.mergeAll(ApiKeyAuthLive, SessionAuthLive)

export { CurrentApiKey, CurrentSession }

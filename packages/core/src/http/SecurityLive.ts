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
import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Context, Effect, type Fiber, Layer, Option } from "effect"
import { Access } from "../access/Access.js"
import type { Scope } from "../access/Scope.js"
import { RateLimiter, rateLimitedError, rateLimitHeaders } from "../ratelimit/RateLimiter.js"
import type { RequestIdentity } from "../ratelimit/RateLimitPolicy.js"
import { type ApiError, apiError } from "./ApiError.js"
import { toApiError } from "./domainErrors.js"
import { CROSS_SITE_MESSAGE, isCrossSiteChange } from "./originCheck.js"
import { PartnerApi } from "./PartnerApi.js"
import { routeKey, routeTable } from "./routeTable.js"
import { addResponseHeaders } from "./serverMiddleware.js"
import { ApiKeyAuth, CurrentApiKey, CurrentSession, SessionAuth } from "./Security.js"

export interface SecurityConfig {
  /** Take the client IP from the first `X-Forwarded-For` hop (behind a trusted proxy). */
  readonly trustProxy: boolean
  /** Origins besides the request's own host whose cookie-authenticated changes are accepted. */
  readonly trustedOrigins?: ReadonlyArray<string> | undefined
}

export class SecuritySettings extends Context.Tag("@frank/core/SecuritySettings")<SecuritySettings, SecurityConfig>() {}

const clientIp = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean): string => {
  if (trustProxy) {
    const forwarded = request.headers["x-forwarded-for"]?.split(",")[0]?.trim()
    if (forwarded !== undefined && forwarded.length > 0) return forwarded
  }
  return Option.getOrElse(request.remoteAddress, () => "unknown")
}

/** The host a request was addressed to, for the CSRF origin check. */
export const requestHost = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean): string | undefined => {
  const forwarded = trustProxy ? request.headers["x-forwarded-host"]?.split(",")[0]?.trim() : undefined
  return forwarded !== undefined && forwarded.length > 0 ? forwarded : request.headers.host
}

const rawApiKey = (request: HttpServerRequest.HttpServerRequest): string => {
  const header = request.headers["x-api-key"]
  if (header !== undefined && header.length > 0) return header.trim()
  const auth = request.headers.authorization
  if (auth !== undefined && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, "").trim()
  return ""
}

const makeGuards = Effect.gen(function* () {
  const access = yield* Access
  const limiter = yield* RateLimiter
  const { trustProxy, trustedOrigins } = yield* SecuritySettings
  const table = routeTable(PartnerApi)

  // The guards run on every request, so they read the request from the fiber directly and chain
  // plain combinators instead of nesting generators.
  const requestOf = (fiber: Fiber.RuntimeFiber<unknown, unknown>) => {
    const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
    const path = Context.unsafeGet(fiber.currentContext, HttpRouter.RouteContext).route.path
    const base: RequestIdentity = { method: request.method, route: path, ip: clientIp(request, trustProxy) }
    return { request, path, base }
  }

  /** Counts the request against every applicable limit; refuses with 429 when any is exhausted. */
  const limit = (request: HttpServerRequest.HttpServerRequest, identity: RequestIdentity) =>
    Effect.flatMap(Effect.orDie(limiter.check(identity)), (decision) => {
      const headers = addResponseHeaders(request, rateLimitHeaders(decision))
      if (decision.allowed) return headers
      const e = rateLimitedError(decision)
      return Effect.zipRight(headers, Effect.fail(apiError(429, e.code, e.message)))
    })

  /** A failed authentication counts against the per-IP limit too (key guessing), then fails. */
  const refuse = (
    request: HttpServerRequest.HttpServerRequest,
    base: RequestIdentity,
    e: Parameters<typeof toApiError>[0]
  ): Effect.Effect<never, ApiError> =>
    e._tag === "StoreError"
      ? Effect.die(e)
      : Effect.zipRight(Effect.ignore(limit(request, base)), Effect.fail(toApiError(e)))

  const apiKey = Effect.withFiberRuntime<CurrentApiKey["Type"], ApiError>((fiber) => {
    const { request, path, base } = requestOf(fiber)
    return Effect.matchEffect(access.authenticateKey(rawApiKey(request)), {
      onFailure: (e) => refuse(request, base, e),
      onSuccess: (key) =>
        Effect.flatMap(limit(request, { ...base, apiKeyId: key.id, partnerId: key.partnerId }), () => {
          // The router answers HEAD with the GET route (the body dropped, its length kept): a HEAD
          // needs what the GET needs. A route the table does not know is closed to restricted keys.
          const route = table.get(routeKey(request.method === "HEAD" ? "GET" : request.method, path))
          const required = route === undefined ? "full" : route.requiredScope
          if (
            key.access === "restricted" &&
            required !== undefined &&
            (required === "full" || !key.scopes.includes(required as Scope))
          )
            return Effect.fail(
              apiError(
                403,
                "API_KEY_SCOPE_REQUIRED",
                required === "full"
                  ? "this operation needs a full-access key; no scope opens it"
                  : `this operation needs the scope ${required}`
              )
            )
          return Effect.succeed({
            partnerId: key.partnerId,
            keyId: key.id,
            access: key.access,
            scopes: key.access === "full" ? [] : key.scopes
          })
        })
    })
  })

  const session = Effect.withFiberRuntime<CurrentSession["Type"], ApiError>((fiber) => {
    const { request, base } = requestOf(fiber)
    const token = request.cookies.service_token ?? ""
    if (token.length === 0 && rawApiKey(request).length > 0)
      return Effect.zipRight(
        limit(request, base),
        Effect.fail(
          apiError(
            403,
            "SESSION_REQUIRED_NOT_API_KEY",
            "this operation needs the cabinet session (cookie service_token); API keys cannot call it"
          )
        )
      )
    const crossSite = isCrossSiteChange(
      {
        method: request.method,
        origin: request.headers.origin,
        referer: request.headers.referer,
        host: requestHost(request, trustProxy)
      },
      trustedOrigins
    )
    if (crossSite)
      return Effect.zipRight(limit(request, base), Effect.fail(apiError(403, "CROSS_SITE_REQUEST", CROSS_SITE_MESSAGE)))
    return Effect.matchEffect(access.authenticateSession(token), {
      onFailure: (e) => refuse(request, base, e),
      onSuccess: (found) =>
        Effect.as(limit(request, { ...base, sessionPartnerId: found.partnerId, partnerId: found.partnerId }), found)
    })
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

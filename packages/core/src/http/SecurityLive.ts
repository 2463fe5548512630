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
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Context, Effect, type Exit, type Fiber, Layer, Option } from "effect"
import { Access } from "../access/Access.js"
import type { ApiKeyRecord } from "../access/ApiKey.js"
import type { Scope } from "../access/Scope.js"
import { RateLimiter, rateLimitedError, rateLimitHeaders } from "../ratelimit/RateLimiter.js"
import { policyField } from "../ratelimit/rateLimitFields.js"
import { type RefusedKey, RateLimitRefusals } from "../ratelimit/RateLimitRefusals.js"
import type { RequestIdentity } from "../ratelimit/RateLimitPolicy.js"
import { type ApiError, apiError } from "./errors/ApiError.js"
import { toApiError } from "./errors/domainErrors.js"
import { CROSS_SITE_MESSAGE, isCrossSiteChange } from "./originCheck.js"
import { PartnerApi } from "./PartnerApi.js"
import { routeKey, routeTable } from "./routeTable.js"
import { addResponseHeaders, currentRequestId } from "./serverMiddleware.js"
import {
  ApiKeyAuth,
  CurrentApiKey,
  CurrentPartner,
  CurrentSession,
  PartnerAuth,
  SessionAuth
} from "./internal/Security.js"
import { auditIdempotencyKey, setAuditOrigin } from "../audit/AuditContext.js"
import type { AuditActor } from "../audit/AuditRecord.js"
import { IdempotencyClaimLive } from "./IdempotencyClaim.js"
import { annotateSpan } from "../internal/spans.js"

export interface SecurityConfig {
  /** Take the client IP from the first `X-Forwarded-For` hop (behind a trusted proxy). */
  readonly trustProxy: boolean
  /** Origins besides the request's own host whose cookie-authenticated changes are accepted. */
  readonly trustedOrigins?: ReadonlyArray<string> | undefined
}

/** The security settings of the partner API (allowed origins, cookie), provided by the host. */
export class SecuritySettings extends Context.Tag("@frank/core/SecuritySettings")<SecuritySettings, SecurityConfig>() {}

/** The client's address: the first `X-Forwarded-For` hop behind a trusted proxy, else the socket's. */
export const clientIp = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean): string => {
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

/** The API key a request presents (`X-API-Key`, else `Authorization: Bearer`), or "". */
export const apiKeyOfHeaders = (headers: { readonly [name: string]: string | ReadonlyArray<string> | undefined }) => {
  const header = headers["x-api-key"]
  if (typeof header === "string" && header.length > 0) return header.trim()
  const auth = headers.authorization
  if (typeof auth === "string" && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, "").trim()
  return ""
}

const rawApiKey = (request: HttpServerRequest.HttpServerRequest): string => apiKeyOfHeaders(request.headers)

const makeGuards = Effect.gen(function* () {
  const access = yield* Access
  const limiter = yield* RateLimiter
  const { trustProxy, trustedOrigins } = yield* SecuritySettings
  const refusals = yield* Effect.serviceOption(RateLimitRefusals)
  const table = routeTable(PartnerApi)

  // The guards run on every request, so they read the request from the fiber directly and chain
  // plain combinators instead of nesting generators.
  const requestOf = (fiber: Fiber.RuntimeFiber<unknown, unknown>) => {
    const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
    const path = Context.unsafeGet(fiber.currentContext, HttpRouter.RouteContext).route.path
    const base: RequestIdentity = { method: request.method, route: path, ip: clientIp(request, trustProxy) }
    return { request, path, base }
  }

  /** Attributes the request's changes to `actor` (the audit log's origin). */
  const attribute = (request: HttpServerRequest.HttpServerRequest, ip: string, actor: AuditActor, partnerId: string) =>
    Effect.flatMap(currentRequestId, (requestId) =>
      setAuditOrigin({
        actor,
        requestId: requestId.length > 0 ? requestId : null,
        ip,
        idempotencyKey: auditIdempotencyKey(request.headers["idempotency-key"])
      })
    ).pipe(
      // The request's server span (when tracing is on) names whose request it is.
      Effect.zipLeft(annotateSpan({ "frank.partner_id": partnerId }))
    )

  /** Counts the request against every applicable limit and reports the tightest in its headers. */
  const check = (request: HttpServerRequest.HttpServerRequest, identity: RequestIdentity) =>
    Effect.flatMap(Effect.orDie(limiter.check(identity)), (decision) =>
      Effect.as(addResponseHeaders(request, rateLimitHeaders(decision)), decision)
    )

  /**
   * Counts the request against every applicable limit; refuses with 429 when any is exhausted and
   * tells the listener (`key`: the authenticated key, for a refusal by its own limit).
   */
  const limit = (request: HttpServerRequest.HttpServerRequest, identity: RequestIdentity, key?: ApiKeyRecord) =>
    Effect.flatMap(check(request, identity), (decision) => {
      if (decision.allowed) return Effect.void
      const verdict = decision.reported!
      if (Option.isSome(refusals)) {
        const refusedKey: RefusedKey | undefined =
          key === undefined || verdict.rule.name !== "api_key"
            ? undefined
            : { raw: rawApiKey(request), id: key.id, partnerId: key.partnerId, expiresAt: key.expiresAt }
        refusals.value.refused({
          route: identity.route,
          verdict,
          key: refusedKey,
          policy: policyField(decision.verdicts)
        })
      }
      const e = rateLimitedError(decision)
      return Effect.fail(apiError(429, e.code, e.message))
    })

  /** A failed authentication counts against the per-IP limit too (key guessing), then fails. */
  const refuse = (
    request: HttpServerRequest.HttpServerRequest,
    base: RequestIdentity,
    e: Parameters<typeof toApiError>[0]
  ): Effect.Effect<never, ApiError> =>
    e._tag === "StoreError" ? Effect.die(e) : Effect.zipRight(check(request, base), Effect.fail(toApiError(e)))

  // The platform runs the bearer scheme when the X-API-Key scheme fails, and both are this one
  // function: its outcome is kept per request, so a refusal authenticates and counts once.
  const outcomes = new WeakMap<object, Exit.Exit<CurrentApiKey["Type"], ApiError>>()
  const apiKey = Effect.withFiberRuntime<CurrentApiKey["Type"], ApiError>((fiber) => {
    const { request } = requestOf(fiber)
    const source = typeof request.source === "object" && request.source !== null ? request.source : undefined
    const known = source === undefined ? undefined : outcomes.get(source)
    if (known !== undefined) return known
    return source === undefined
      ? authenticateKey(fiber)
      : Effect.onExit(authenticateKey(fiber), (exit) => Effect.sync(() => outcomes.set(source, exit)))
  })

  const authenticateKey = (fiber: Fiber.RuntimeFiber<unknown, unknown>) => {
    const { request, path, base } = requestOf(fiber)
    return Effect.matchEffect(access.authenticateKey(rawApiKey(request)), {
      onFailure: (e) => refuse(request, base, e),
      onSuccess: (key) =>
        Effect.flatMap(limit(request, { ...base, apiKeyId: key.id, partnerId: key.partnerId }, key), () => {
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
          return Effect.as(
            attribute(request, base.ip, { type: "api_key", id: key.id, label: key.label }, key.partnerId),
            {
              partnerId: key.partnerId,
              keyId: key.id,
              access: key.access,
              scopes: key.access === "full" ? [] : key.scopes
            }
          )
        })
    })
  }

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
        Effect.as(
          Effect.zipRight(
            limit(request, { ...base, sessionPartnerId: found.partnerId, partnerId: found.partnerId }),
            attribute(
              request,
              base.ip,
              { type: "session", id: found.sessionId, label: "cabinet session" },
              found.partnerId
            )
          ),
          { partnerId: found.partnerId }
        )
    })
  })

  // A key when the request presents one, else a session; kept per request like `apiKey`, since
  // the platform runs this once per scheme until one succeeds.
  const partnerOutcomes = new WeakMap<object, Exit.Exit<CurrentPartner["Type"], ApiError>>()
  const partner = Effect.withFiberRuntime<CurrentPartner["Type"], ApiError>((fiber) => {
    const { request } = requestOf(fiber)
    const source = typeof request.source === "object" && request.source !== null ? request.source : undefined
    const known = source === undefined ? undefined : partnerOutcomes.get(source)
    if (known !== undefined) return known
    const run =
      rawApiKey(request).length > 0
        ? Effect.map(apiKey, (k) => ({ partnerId: k.partnerId }))
        : Effect.map(session, (s) => ({ partnerId: s.partnerId }))
    return source === undefined
      ? run
      : Effect.onExit(run, (exit) => Effect.sync(() => partnerOutcomes.set(source, exit)))
  })

  return { apiKey, session, partner }
})

export const ApiKeyAuthLive = Layer.effect(
  ApiKeyAuth,
  Effect.map(makeGuards, ({ apiKey }) => ({ apiKey: () => apiKey, bearer: () => apiKey }))
)

export const SessionAuthLive = Layer.effect(
  SessionAuth,
  Effect.map(makeGuards, ({ session }) => ({ session: () => session }))
)

export const PartnerAuthLive = Layer.effect(
  PartnerAuth,
  Effect.map(makeGuards, ({ partner }) => ({ apiKey: () => partner, bearer: () => partner, session: () => partner }))
)

/**
 * The security middlewares and the idempotency claim every group carries; needs Access,
 * RateLimiter and SecuritySettings.
 */
export const SecurityLive = Layer.mergeAll(ApiKeyAuthLive, SessionAuthLive, PartnerAuthLive, IdempotencyClaimLive)

export { CurrentApiKey, CurrentPartner, CurrentSession }

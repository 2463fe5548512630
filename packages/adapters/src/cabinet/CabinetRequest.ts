/**
 * What every signed-in cabinet request goes through: the language, the CSRF origin check for
 * changes, the session cookie (an expired or missing one leads to the signed-out page), and the
 * spec's 60/min session limit (a 429 page saying when to try again).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as UrlParams from "@effect/platform/UrlParams"
import { Access, Audit, type Ids, RateLimit, Tariffs } from "@frank/core"
import { currentRequestId, isCrossSiteChange, requestHost } from "@frank/core/http"
import { Effect, Option } from "effect"
import { type CabinetOptions, SESSION_COOKIE } from "./CabinetOptions.js"
import { barePage, html, htmlResponse, type PageFrame } from "./html.js"
import { isLang, LANG_COOKIE, type Lang, pickLang, stringsFor } from "./i18n.js"

export interface CabinetContext extends PageFrame {
  readonly partnerId: Ids.PartnerId
  readonly query: URLSearchParams
  readonly method: string
}

const clientIp = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean): string => {
  const forwarded = trustProxy ? request.headers["x-forwarded-for"]?.split(",")[0]?.trim() : undefined
  return forwarded !== undefined && forwarded.length > 0
    ? forwarded
    : Option.getOrElse(request.remoteAddress, () => "unknown")
}

/**
 * Attributes the request fiber's audited changes to `actor`, with the request's id, client
 * address and idempotency key (the audit log's origin).
 */
export const attributeRequest = (
  request: HttpServerRequest.HttpServerRequest,
  trustProxy: boolean,
  actor: Audit.AuditActor
): Effect.Effect<void> =>
  Effect.flatMap(currentRequestId, (requestId) =>
    Audit.setAuditOrigin({
      actor,
      requestId: requestId.length > 0 ? requestId : null,
      ip: clientIp(request, trustProxy),
      idempotencyKey: Audit.auditIdempotencyKey(request.headers["idempotency-key"])
    })
  )

/** The language of this request; `?lang=` (the switch) also sets the cookie on the response. */
export const requestLang = (request: HttpServerRequest.HttpServerRequest, query: URLSearchParams) => {
  const asked = query.get("lang")
  const lang: Lang = isLang(asked) ? asked : pickLang(request.cookies[LANG_COOKIE], request.headers["accept-language"])
  return { lang, setCookie: isLang(asked) }
}

/** Sets the language cookie when the switch was used. */
export const withLangCookie = (res: HttpServerResponse.HttpServerResponse, lang: Lang, set: boolean) =>
  set
    ? HttpServerResponse.unsafeSetCookie(res, LANG_COOKIE, lang, { path: "/", maxAge: "365 days", sameSite: "lax" })
    : res

export const frameOf = (options: CabinetOptions, request: HttpServerRequest.HttpServerRequest) => {
  const url = new URL(request.url, "http://cabinet.invalid")
  const { lang, setCookie } = requestLang(request, url.searchParams)
  const frame: PageFrame = { base: options.basePath, lang, t: stringsFor(lang), path: url.pathname }
  const finish = (res: HttpServerResponse.HttpServerResponse) => withLangCookie(res, lang, setCookie)
  return { frame, query: url.searchParams, finish }
}

export type Handler<R> = (ctx: CabinetContext) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>

/**
 * Wraps a page or action handler of route `route` (the template, for the per-IP counter) with
 * the cabinet's rules.
 */
export const makeGuard = Effect.gen(function* () {
  const access = yield* Access.Access
  const limiter = yield* RateLimit.RateLimiter
  const tariffs = yield* Tariffs.Tariffs
  const refusals = yield* Effect.serviceOption(RateLimit.RateLimitRefusals)
  // The header's name and plan: two reads per page, beside the session's own.
  const accountOf = (partnerId: Ids.PartnerId) =>
    Effect.all(
      {
        name: access.getPartner(partnerId).pipe(
          Effect.map((p) => p.name),
          Effect.catchTag("PartnerNotFound", () => Effect.succeed(""))
        ),
        plan: Effect.map(tariffs.view(partnerId), (v): string => v.plan)
      },
      { concurrency: 2 }
    ).pipe(Effect.orDie)
  return (options: CabinetOptions) =>
    <R>(route: string, handler: Handler<R>) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const { frame, query, finish } = frameOf(options, request)
        const t = frame.t
        const crossSite = isCrossSiteChange(
          {
            method: request.method,
            origin: request.headers.origin,
            referer: request.headers.referer,
            host: requestHost(request, options.trustProxy)
          },
          options.trustedOrigins
        )
        if (crossSite)
          return htmlResponse(barePage(frame, t.errors.title, html`<p role="alert">${t.errors.crossSite}</p>`), 403)
        const token = request.cookies[SESSION_COOKIE] ?? ""
        const session = yield* Effect.either(access.authenticateSession(token))
        if (session._tag === "Left") {
          if (session.left._tag === "StoreError") return yield* Effect.die(session.left)
          const reason = session.left._tag === "SessionExpired" ? "expired" : "required"
          return finish(redirect(`${options.basePath}/signed-out?reason=${reason}`))
        }
        const partnerId = session.right.partnerId
        const template = `${options.basePath}${route}`
        const decision = yield* Effect.orDie(
          limiter.check({
            method: request.method,
            route: template,
            ip: clientIp(request, options.trustProxy),
            sessionPartnerId: partnerId,
            partnerId
          })
        )
        const limitHeaders = RateLimit.rateLimitHeaders(decision)
        if (!decision.allowed) {
          if (Option.isSome(refusals)) refusals.value.refused({ route: template, verdict: decision.reported! })
          const seconds = Number(limitHeaders["retry-after"] ?? "60")
          const body = barePage(
            frame,
            t.errors.title,
            html`<p role="alert" data-testid="rate-limited">${t.errors.rateLimited(seconds)}</p>`
          )
          return htmlResponse(body, 429, limitHeaders)
        }
        // The page's changes are the session's (the audit log's origin for this request).
        yield* attributeRequest(request, options.trustProxy, {
          type: "session",
          id: session.right.sessionId,
          label: "cabinet session"
        })
        const account = yield* accountOf(partnerId)
        const res = yield* handler({ ...frame, account, partnerId, query, method: request.method })
        return finish(HttpServerResponse.setHeaders(res, limitHeaders))
      })
})

export const redirect = (location: string) =>
  HttpServerResponse.empty({
    status: 303,
    headers: { location, "cache-control": "no-store", "referrer-policy": "no-referrer" }
  })

/** The urlencoded form body of a POST (empty on a malformed body: every field then fails validation). */
export const formBody = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const params = yield* Effect.orElseSucceed(request.urlParamsBody, () => UrlParams.empty)
  return {
    get: (name: string) => Option.getOrUndefined(UrlParams.getFirst(params, name)),
    getAll: (name: string) => UrlParams.getAll(params, name)
  }
})

export type FormBody = Effect.Effect.Success<typeof formBody>

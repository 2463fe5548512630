/**
 * Signing in and out: the one-time link from the admin API becomes the `service_token` cookie and
 * a redirect that drops the token from the address bar; sign-out ends the session on the server.
 * These routes run before there is a session, so they are outside the session guard (sign-out
 * still refuses cross-site posts).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Access, Audit } from "@frank/core"
import { isCrossSiteChange, requestHost } from "@frank/core/http"
import { Effect } from "effect"
import { type CabinetOptions, SESSION_COOKIE } from "./CabinetOptions.js"
import { attributeRequest, frameOf, redirect } from "./CabinetRequest.js"
import { barePage, html, htmlResponse } from "./html.js"

export const makeSignInRoutes = (options: CabinetOptions) =>
  Effect.gen(function* () {
    const access = yield* Access.Access
    const base = options.basePath

    const signIn = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { frame, query, finish } = frameOf(options, request)
      // The session the link opens becomes the actor (Audit.AuditedAccess); this names the request.
      yield* attributeRequest(request, options.trustProxy, Audit.systemOrigin.actor)
      const redeemed = yield* Effect.either(access.redeemSignIn(query.get("token") ?? ""))
      if (redeemed._tag === "Left") {
        if (redeemed.left._tag === "StoreError") return yield* Effect.die(redeemed.left)
        const reason = redeemed.left.reason
        const body = html`<p role="alert" data-testid="sign-in-problem" data-reason="${reason}">${frame.t.signIn[reason]}</p>`
        return finish(
          htmlResponse(
            barePage({ ...frame, path: `${base}/sign-in` }, frame.t.signIn.linkInvalidTitle, body),
            reason === "unknown" ? 400 : 410
          )
        )
      }
      const s = redeemed.right
      const res = HttpServerResponse.unsafeSetCookie(redirect(`${base}/`), SESSION_COOKIE, s.token, {
        httpOnly: true,
        sameSite: "lax",
        secure: options.secureCookie,
        path: "/",
        expires: new Date(s.expiresAt)
      })
      return finish(res)
    })

    const signOut = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { frame, finish } = frameOf(options, request)
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
        return htmlResponse(
          barePage(frame, frame.t.errors.title, html`<p role="alert">${frame.t.errors.crossSite}</p>`),
          403
        )
      yield* attributeRequest(request, options.trustProxy, Audit.systemOrigin.actor)
      yield* Effect.orDie(access.endSession(request.cookies[SESSION_COOKIE] ?? ""))
      const res = HttpServerResponse.expireCookie(redirect(`${base}/signed-out?reason=signed-out`), SESSION_COOKIE, {
        path: "/"
      })
      return finish(res)
    })

    const signedOut = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { frame, query, finish } = frameOf(options, request)
      const reason = query.get("reason")
      const t = frame.t.signIn
      const text = reason === "expired" ? t.sessionExpired : reason === "signed-out" ? t.signedOut : t.sessionRequired
      const body = html`<p role="status" data-testid="signed-out" data-reason="${reason}">${text}</p>`
      return finish(htmlResponse(barePage(frame, t.signedOutTitle, body)))
    })

    return { signIn, signOut, signedOut }
  })

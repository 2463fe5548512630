/**
 * The answers for request bodies `requestGuard` cut off while they streamed, in the error
 * envelope on every route: over the size limit (413) or a JSON body nested too deep or holding
 * too many values (400). The
 * handler saw a cut-off body; a pre-response handler replaces whatever it answered, since server
 * middleware runs only after the response is sent.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { CodesByStatus } from "@frank/core/http"
import { Effect } from "effect"
import { type RequestLimits, refusalAnswer, refusalOf } from "./requestGuard.js"

/** What the guard and this module answer for a request body, whatever the route (for /openapi.json). */
export const hostBodyRefusals: CodesByStatus = { 413: ["PAYLOAD_TOO_LARGE"], 415: ["UNSUPPORTED_MEDIA_TYPE"] }
/** What the host answers on any operation not answered by FRANK_REQUEST_TIMEOUT_MS (requestDeadline.ts). */
export const hostServerRefusals: CodesByStatus = { 503: ["REQUEST_TIMEOUT"] }

const envelope = (status: number, code: string, message: string | ReadonlyArray<string>) =>
  HttpServerResponse.unsafeJson({ statusCode: status, message, code }, { status })

const answerFor = (request: HttpServerRequest.HttpServerRequest, limits: RequestLimits) => {
  const refusal = refusalOf(request.source)
  if (refusal === undefined) return undefined
  const [status, code, message] = refusalAnswer(refusal, limits)
  return envelope(status, code, message)
}

export const refuseCutOffBodies =
  (limits: RequestLimits) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
    Effect.zipRight(
      HttpApp.appendPreResponseHandler((request, response) => {
        const refused = answerFor(request, limits)
        // Keeps the headers set so far (the request id, rate-limit headers).
        return Effect.succeed(
          refused === undefined ? response : HttpServerResponse.setHeaders(refused, response.headers)
        )
      }),
      app
    )

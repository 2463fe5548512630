/**
 * The outermost HTTP middleware of a Frank server: request ids, the 404 envelope for unknown
 * routes, and the 500 envelope for anything unexpected. A client never sees a stack trace or an
 * SQL error; the log line with the same request id has the cause.
 */
import { type HttpApp, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Clock, Effect, Option } from "effect"
import { Ids } from "../Ids.js"

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/

export interface RequestObservation {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly durationMs: number
  readonly requestId: string
}

const json = (status: number, body: object, requestId: string) =>
  HttpServerResponse.unsafeJson(body, { status, headers: { "x-request-id": requestId } })

export const frankServerMiddleware =
  (observe: (o: RequestObservation) => Effect.Effect<void> = () => Effect.void) =>
  <E, R>(app: HttpApp.Default<E, R>) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const started = yield* Clock.currentTimeMillis
      const given = request.headers["x-request-id"]
      const requestId = given !== undefined && REQUEST_ID.test(given) ? given : yield* Effect.flatMap(Ids, (ids) => ids.next)
      const path = request.url.split("?")[0] ?? request.url

      const response = yield* app.pipe(
        Effect.map((res) => HttpServerResponse.setHeader(res, "x-request-id", requestId)),
        Effect.catchAllCause((cause) => {
          const failure = Cause.failureOption(cause)
          if (Option.isSome(failure) && failure.value instanceof HttpServerError.RouteNotFound)
            return Effect.succeed(json(404, { statusCode: 404, message: `Cannot ${request.method} ${path}`, code: "ROUTE_NOT_FOUND" }, requestId))
          if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
          return Effect.logError("request failed", cause).pipe(
            Effect.as(json(500, { statusCode: 500, message: "Internal error; the outcome of a write may be unknown", code: "INTERNAL_ERROR", requestId }, requestId))
          )
        }),
        // The request id annotates every log line of the request, handler logs included.
        Effect.annotateLogs("requestId", requestId)
      )
      const finished = yield* Clock.currentTimeMillis
      const observation = { method: request.method, path, status: response.status, durationMs: finished - started, requestId }
      yield* Effect.logInfo("request").pipe(
        Effect.annotateLogs({ requestId, method: observation.method, path, status: observation.status, durationMs: observation.durationMs })
      )
      yield* observe(observation)
      return response
    }).pipe(Effect.annotateLogs("component", "http"))

/**
 * Request ids, access logs, the 404 envelope for unknown routes and the 500 envelope for anything
 * unexpected. A client never sees a stack trace or an SQL error; the log line carrying the same
 * request id has the cause.
 *
 * Two layers of the platform matter here: an API-level middleware (`UnexpectedErrorsLive`) runs
 * before errors become responses, so it decides the bodies; the server middleware
 * (`frankServerMiddleware`) runs after the response is sent, so it only names the request and
 * observes it (headers are added through a pre-response handler registered up front).
 */
import { HttpApiBuilder, HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Clock, Effect, FiberRef, HashMap, LogLevel, Option } from "effect"
import { Ids } from "../Ids.js"
import { PartnerApi } from "./PartnerApi.js"
import { generationFailureResponse, isGenerationPath } from "./generationEnvelope.js"
import { validationFailure } from "./ValidationErrors.js"

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/

/** The id of the request the current fiber serves (the `requestId` log annotation). */
export const currentRequestId = Effect.map(FiberRef.get(FiberRef.currentLogAnnotations), (a) =>
  Option.getOrElse(HashMap.get(a, "requestId"), () => "") as string
)

export interface RequestObservation {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly durationMs: number
  readonly requestId: string
}

export const frankServerMiddleware =
  (observe: (o: RequestObservation) => Effect.Effect<void> = () => Effect.void) =>
  <E, R>(app: HttpApp.Default<E, R>) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const started = yield* Clock.currentTimeMillis
      const given = request.headers["x-request-id"]
      const requestId = given !== undefined && REQUEST_ID.test(given) ? given : yield* Effect.flatMap(Ids, (ids) => ids.next)
      const path = request.url.split("?")[0] ?? request.url
      yield* HttpApp.appendPreResponseHandler((_req, res) => Effect.succeed(HttpServerResponse.setHeader(res, "x-request-id", requestId)))
      const response = yield* Effect.annotateLogs(app, "requestId", requestId)
      const durationMs = (yield* Clock.currentTimeMillis) - started
      // Access lines are built only when they will be written: at warning level the hot path
      // skips the annotation work entirely.
      if (LogLevel.lessThanEqual(yield* FiberRef.get(FiberRef.currentMinimumLogLevel), LogLevel.Info))
        yield* Effect.logInfo("request").pipe(
          Effect.annotateLogs({ requestId, method: request.method, path, status: response.status, durationMs, component: "http" })
        )
      yield* observe({ method: request.method, path, status: response.status, durationMs, requestId })
      return response
    })

/** `A: msg ← B: msg ← …` through `.cause` links, so a wrapped SQL error is visible in the log. */
const causeChain = (error: unknown): string => {
  const parts: string[] = []
  let current: unknown = error
  for (let depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
    parts.push(current instanceof Error ? `${current.name}: ${current.message}` : String(current))
    current = (current as { cause?: unknown }).cause
  }
  return parts.join(" ← ")
}

const envelope = (status: number, body: object) => HttpServerResponse.unsafeJson(body, { status })

/** Every error the API does not encode by itself, as an envelope: 400, 404 or 500. */
export const ErrorEnvelopesLive = HttpApiBuilder.middleware(PartnerApi, (app) =>
  Effect.catchAllCause(app, (cause) =>
    Effect.gen(function* () {
      const invalid = validationFailure(cause)
      if (invalid !== undefined) {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (isGenerationPath(request.url.split("?")[0] ?? request.url)) return generationFailureResponse(invalid) ?? (yield* Effect.fail(invalid))
        return yield* Effect.fail(invalid)
      }
      const failure = Cause.failureOption(cause)
      if (Option.isSome(failure)) {
        const err = failure.value as { readonly _tag?: string }
        if (err._tag === "RouteNotFound") {
          const request = yield* HttpServerRequest.HttpServerRequest
          const path = request.url.split("?")[0] ?? request.url
          return envelope(404, { statusCode: 404, message: `Cannot ${request.method} ${path}`, code: "ROUTE_NOT_FOUND" })
        }
        // Typed API errors are encoded by the API into their envelopes; the generation area
        // answers in its own envelope.
        const request = yield* HttpServerRequest.HttpServerRequest
        const generation = isGenerationPath(request.url.split("?")[0] ?? request.url) ? generationFailureResponse(failure.value) : undefined
        if (generation !== undefined) return generation
        return yield* Effect.failCause(cause)
      }
      if (Cause.isInterruptedOnly(cause)) return yield* Effect.failCause(cause)
      const requestId = yield* currentRequestId
      yield* Effect.logError("request failed", cause).pipe(Effect.annotateLogs("causeChain", causeChain(Cause.squash(cause))))
      return envelope(500, { statusCode: 500, message: "Internal error; the outcome of a write may be unknown", code: "INTERNAL_ERROR", requestId })
    })
  )
)

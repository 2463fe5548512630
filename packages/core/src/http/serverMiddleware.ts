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
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Clock, Context, Effect, FiberRef, HashMap, LogLevel, Option } from "effect"
import { Ids } from "../internal/ids.js"
import { PartnerApi } from "./PartnerApi.js"
import { generationFailureResponse, isGenerationPath } from "./internal/generationEnvelope.js"
import { refusesMediaType, UNSUPPORTED_MEDIA_TYPE, unsupportedMediaTypeMessage } from "./mediaType.js"
import { nulRefusal } from "./internal/nulCharacters.js"
import type { BadRequest } from "./errors/ApiError.js"
import { validationFailure } from "./errors/internal/ValidationErrors.js"

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/

/** The id of the request the current fiber serves (the `requestId` log annotation). */
export const currentRequestId = Effect.map(
  FiberRef.get(FiberRef.currentLogAnnotations),
  (a) => Option.getOrElse(HashMap.get(a, "requestId"), () => "") as string
)

export interface RequestObservation {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly durationMs: number
  readonly requestId: string
}

/**
 * Response headers of the request being served, written by the one pre-response handler
 * `frankServerMiddleware` registers; other middlewares add to them through `addResponseHeaders`.
 * Keyed by the platform's source request (a node `IncomingMessage`, a web `Request`), which every
 * `HttpServerRequest` derived from it during the request shares.
 */
const pendingHeaders = new WeakMap<object, Record<string, string>>()

const sourceOf = (request: HttpServerRequest.HttpServerRequest): object | undefined =>
  typeof request.source === "object" && request.source !== null ? request.source : undefined

/**
 * Sets `headers` on the response of `request`: in the header set of `frankServerMiddleware` when
 * it serves the request (no extra pre-response handler), else through a pre-response handler of
 * their own.
 */
export const addResponseHeaders = (
  request: HttpServerRequest.HttpServerRequest,
  headers: Readonly<Record<string, string>>
): Effect.Effect<void> => {
  const source = sourceOf(request)
  const pending = source === undefined ? undefined : pendingHeaders.get(source)
  if (pending === undefined)
    return HttpApp.appendPreResponseHandler((_req, res) => Effect.succeed(HttpServerResponse.setHeaders(res, headers)))
  Object.assign(pending, headers)
  return Effect.void
}

/**
 * Names every request (`x-request-id`: the client's when well-formed, else a fresh id), annotates
 * its logs with the id, writes the access log line at `info` and reports the request to `observe`.
 * Per-request work is kept to plain calls on the fiber: this runs on every request.
 */
export const frankServerMiddleware =
  (observe: (o: RequestObservation) => Effect.Effect<void> = () => Effect.void) =>
  <E, R>(app: HttpApp.Default<E, R>) => {
    const serve = (
      request: HttpServerRequest.HttpServerRequest,
      clock: Clock.Clock,
      started: number,
      requestId: string
    ) => {
      const headers: Record<string, string> = { "x-request-id": requestId }
      const source = sourceOf(request)
      if (source !== undefined) pendingHeaders.set(source, headers)
      // The annotation stays on the request's own fiber (one per request) for its remaining life,
      // which is this middleware and what the platform does after it.
      return FiberRef.update(FiberRef.currentLogAnnotations, HashMap.set("requestId", requestId as unknown)).pipe(
        Effect.zipRight(
          HttpApp.appendPreResponseHandler((_req, res) => Effect.succeed(HttpServerResponse.setHeaders(res, headers)))
        ),
        Effect.zipRight(app),
        Effect.flatMap((response) =>
          Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse>((fiber) => {
            const durationMs = clock.unsafeCurrentTimeMillis() - started
            const path = request.url.split("?")[0] ?? request.url
            const observed = observe({ method: request.method, path, status: response.status, durationMs, requestId })
            // Access lines are built only when they will be written: at warning level the hot
            // path skips the annotation work entirely.
            const logged = LogLevel.lessThanEqual(fiber.getFiberRef(FiberRef.currentMinimumLogLevel), LogLevel.Info)
              ? Effect.zipRight(
                  Effect.logInfo("request").pipe(
                    Effect.annotateLogs({
                      requestId,
                      method: request.method,
                      path,
                      status: response.status,
                      durationMs,
                      component: "http"
                    })
                  ),
                  observed
                )
              : observed
            return Effect.as(logged, response)
          })
        )
      )
    }
    return Effect.withFiberRuntime<
      HttpServerResponse.HttpServerResponse,
      E,
      R | Ids | HttpServerRequest.HttpServerRequest
    >((fiber) => {
      const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
      const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
      const started = clock.unsafeCurrentTimeMillis()
      const given = request.headers["x-request-id"]
      if (given !== undefined && REQUEST_ID.test(given)) return serve(request, clock, started, given)
      return Effect.flatMap(Ids, (ids) => Effect.flatMap(ids.next, (id) => serve(request, clock, started, id)))
    })
  }

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

/** Requests with NUL characters fail as validation errors, answered like the others below. */
const refusingNul = <A, E, R>(
  app: Effect.Effect<A, E, R>
): Effect.Effect<A, E | BadRequest, R | HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(
    nulRefusal,
    (refused): Effect.Effect<A, E | BadRequest, R> => (refused === undefined ? app : Effect.fail(refused))
  )

const refusesPartnerMediaType = refusesMediaType(PartnerApi)

/**
 * A body the API does not read (see mediaType.ts): 415, and the connection closes, since the body
 * is left unread. The reference host refuses these before its HTTP layer; an embedder's server
 * does here.
 */
const refusingMediaType = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    refusesPartnerMediaType(request)
      ? Effect.succeed(
          HttpServerResponse.unsafeJson(
            { statusCode: 415, message: unsupportedMediaTypeMessage, code: UNSUPPORTED_MEDIA_TYPE },
            { status: 415, headers: { connection: "close" } }
          )
        )
      : app
  )

/**
 * Every error the API does not encode by itself, as an envelope: 400, 404 or 500; NUL characters
 * and bodies that are not JSON refused.
 */
export const ErrorEnvelopesLive = HttpApiBuilder.middleware(PartnerApi, (app) =>
  Effect.catchAllCause(refusingMediaType(refusingNul(app)), (cause) =>
    Effect.gen(function* () {
      const invalid = validationFailure(cause)
      if (invalid !== undefined) {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (isGenerationPath(request.url.split("?")[0] ?? request.url))
          return generationFailureResponse(invalid) ?? (yield* Effect.fail(invalid))
        return yield* Effect.fail(invalid)
      }
      const failure = Cause.failureOption(cause)
      if (Option.isSome(failure)) {
        const err = failure.value as { readonly _tag?: string }
        if (err._tag === "RouteNotFound") {
          const request = yield* HttpServerRequest.HttpServerRequest
          const path = request.url.split("?")[0] ?? request.url
          return envelope(404, {
            statusCode: 404,
            message: `Cannot ${request.method} ${path}`,
            code: "ROUTE_NOT_FOUND"
          })
        }
        // Typed API errors are encoded by the API into their envelopes; the generation area
        // answers in its own envelope.
        const request = yield* HttpServerRequest.HttpServerRequest
        const generation = isGenerationPath(request.url.split("?")[0] ?? request.url)
          ? generationFailureResponse(failure.value)
          : undefined
        if (generation !== undefined) return generation
        return yield* Effect.failCause(cause)
      }
      if (Cause.isInterruptedOnly(cause)) return yield* Effect.failCause(cause)
      const requestId = yield* currentRequestId
      yield* Effect.logError("request failed", cause).pipe(
        Effect.annotateLogs("causeChain", causeChain(Cause.squash(cause)))
      )
      return envelope(500, {
        statusCode: 500,
        message: "Internal error; the outcome of a write may be unknown",
        code: "INTERNAL_ERROR",
        requestId
      })
    })
  )
)

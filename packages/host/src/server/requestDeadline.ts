/**
 * `FRANK_REQUEST_TIMEOUT_MS` over the whole request, handler included. node:http's own timeout
 * ends once the request has arrived (it answers 408 for one still arriving), so a handler that
 * never answers (a stalled query, a body read that never ends) would hold the connection for
 * good. At the deadline such a request gets a 503 envelope and its connection closes; the handler
 * is interrupted without waiting for it.
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import type { RequestLimits } from "./requestGuard.js"

const timedOut = HttpServerResponse.unsafeJson(
  {
    statusCode: 503,
    message: "the request could not be answered in time; the outcome of a write may be unknown",
    code: "REQUEST_TIMEOUT"
  },
  { status: 503, headers: { connection: "close" } }
)

/**
 * A request still arriving at the deadline is node:http's to answer (408): answering here would
 * interrupt the body's reader, which destroys the socket before any answer is written.
 */
const arrived = (request: HttpServerRequest.HttpServerRequest) =>
  (request.source as { readonly complete?: boolean }).complete !== false

export const answerWithin =
  (limits: RequestLimits) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.raceFirst(
        // The platform runs a request uninterruptibly (the router makes each route interruptible
        // again); the race needs the app interruptible to stop waiting for it.
        Effect.interruptible(Effect.disconnect(app)),
        // Interruptible too: the race waits for its loser, and an uninterruptible timer would
        // hold the request's fiber (and its server span) until the deadline.
        Effect.interruptible(
          Effect.sleep(limits.requestTimeoutMs).pipe(
            Effect.zipRight(Effect.suspend(() => (arrived(request) ? Effect.succeed(timedOut) : Effect.never)))
          )
        )
      )
    )

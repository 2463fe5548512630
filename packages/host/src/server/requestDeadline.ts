/**
 * `FRANK_REQUEST_TIMEOUT_MS` over the whole request, handler included. node:http's own timeout
 * ends once the request has arrived (it answers 408 for one still arriving), so a handler that
 * never answers (a stalled query, a body read that never ends) would hold the connection for
 * good. At the deadline such a request gets a 503 envelope and its connection closes; the handler
 * is interrupted without waiting for it.
 *
 * One sweeper fiber per server finds the requests past their deadline, rather than a timer fiber
 * per request raced against the handler: the race forked three fibers per request (two racers
 * and the handler's daemon) and cost about as much CPU as the rest of the host's middleware
 * (docs/performance.md, issue 36). A request now forks only its handler's daemon.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Deferred, Effect, Exit, type Fiber, FiberId, FiberRef, Schedule, type Scope } from "effect"
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

/** A request being handled: its deadline, and where the handler's exit or the deadline lands. */
interface InFlight {
  readonly dueAt: number
  readonly request: HttpServerRequest.HttpServerRequest
  /** The handler's exit, or undefined at the deadline. */
  readonly outcome: Deferred.Deferred<Exit.Exit<HttpServerResponse.HttpServerResponse, unknown> | undefined>
}

/** How late past its deadline a request may be answered: a twentieth of the timeout, 10–250 ms. */
const sweepEveryMs = (limits: RequestLimits) => Math.max(10, Math.min(250, Math.floor(limits.requestTimeoutMs / 20)))

/**
 * The deadline middleware, with its sweeper running in the calling scope. Times come from the
 * Clock of the fiber that builds it (the host's, or the sandbox's).
 */
export const answerWithin = (
  limits: RequestLimits
): Effect.Effect<<E, R>(app: HttpApp.Default<E, R>) => HttpApp.Default<E, R>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const clock = yield* Effect.clock
    const inFlight = new Set<InFlight>()
    const sweep = Effect.sync(() => {
      const now = clock.unsafeCurrentTimeMillis()
      for (const r of inFlight)
        if (r.dueAt <= now) {
          inFlight.delete(r)
          // Still arriving: node:http answers 408 and the handler waits for its body as before.
          if (arrived(r.request)) Deferred.unsafeDone(r.outcome, Exit.succeed(undefined))
        }
    })
    yield* Effect.forkScoped(Effect.repeat(sweep, Schedule.spaced(sweepEveryMs(limits))))
    return <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        // The platform runs a request uninterruptibly (the router makes each route interruptible
        // again); the handler runs interruptibly on a daemon fiber, so the deadline stops waiting
        // for it without waiting for its interruption, as `Effect.disconnect` does.
        Effect.flatMap(Effect.forkDaemon(Effect.interruptible(app)), (handler) => {
          const entry: InFlight = {
            dueAt: clock.unsafeCurrentTimeMillis() + limits.requestTimeoutMs,
            request,
            outcome: Deferred.unsafeMake(FiberId.none)
          }
          inFlight.add(entry)
          handler.addObserver((exit) => Deferred.unsafeDone(entry.outcome, Exit.succeed(exit)))
          return Effect.interruptible(Deferred.await(entry.outcome)).pipe(
            Effect.flatMap((exit) => (exit === undefined ? answerLate(handler) : joined(handler, exit))),
            Effect.onInterrupt(() => handler.interruptAsFork(FiberId.none)),
            Effect.ensuring(Effect.sync(() => inFlight.delete(entry)))
          )
        })
      )
  })

/**
 * The handler's answer, with the two of its fiber's changes the layers outside read kept: the
 * pre-response handlers (response headers) and the log annotations. A whole join
 * (`inheritAll`) diffs and patches every FiberRef and the context on each request; both kept
 * here are plain FiberRefs whose join is the child's value, so copying them is what the join did.
 */
const joined = <A, E>(handler: Fiber.RuntimeFiber<A, E>, exit: Exit.Exit<A, unknown>) =>
  FiberRef.set(HttpApp.currentPreResponseHandlers, handler.getFiberRef(HttpApp.currentPreResponseHandlers)).pipe(
    Effect.zipRight(FiberRef.set(FiberRef.currentLogAnnotations, handler.getFiberRef(FiberRef.currentLogAnnotations))),
    Effect.zipRight(exit as Exit.Exit<A, E>)
  )

/** The 503 at the deadline; the handler is interrupted without waiting for it. */
const answerLate = <A, E>(handler: Fiber.RuntimeFiber<A, E>) =>
  Effect.as(handler.interruptAsFork(FiberId.none), timedOut as A)

/**
 * The HTTP server of the host: partner API + admin API on one HttpApi, OpenAPI at /openapi.json,
 * the interactive reference at /docs (Swagger UI bundled in @effect/platform, no CDN), health,
 * readiness and metrics.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Access, RateLimit } from "@frank/core"
// biome-ignore lint/correctness/noUnusedImports: the declaration emit names the engine's services in this layer's type through them
import type { Audit, Files, Ids, Invoices, Ledger, Payments, Pricing, Tariffs, Tasks, Webhooks } from "@frank/core"
// biome-ignore lint/correctness/noUnusedImports: the declaration emit names the idempotency store in this layer's type through it
import type { Idempotency } from "@frank/core/http"
import { ErrorEnvelopesLive, frankServerMiddleware, IdempotencyLive, refusesMediaType } from "@frank/core/http"
// biome-ignore lint/correctness/noUnusedImports: the declaration emit names the sandbox tags in this layer's type through them
import type { SandboxAcquirer, SandboxBank, SandboxGeneration } from "@frank/adapters"
import { Effect, FiberRef, Layer, type Redacted, Schedule } from "effect"
import { Metrics } from "../metrics/Metrics.js"
import { CheckoutRoutes } from "../sandbox/CheckoutRoutes.js"
import { SandboxBankRoutes } from "../sandbox/SandboxBankRoutes.js"
import { CabinetRoutes } from "./CabinetRoutes.js"
import { DocsRoute } from "./DocsRoute.js"
import { HealthRoutes } from "./HealthRoutes.js"
import { HostApi } from "./HostApi.js"
import { HostApiLive } from "./HostApiLive.js"
import { OpenApiRoute } from "./OpenApiRoute.js"
import { PaymentNotificationRoute } from "./PaymentNotificationRoute.js"
import { refuseCutOffBodies } from "./refusals.js"
import { makeRefusedKeys, releasingOnChange, withRefusedKeys } from "./refusedKeyShortcut.js"
import { answerWithin } from "./requestDeadline.js"
import { guardedServer, type RequestLimits } from "./requestGuard.js"
import { corsLayer, earlyCors } from "./cors.js"
import { makeRouteLabeler } from "./routeLabel.js"

const OPERATIONAL_ROUTES = ["/healthz", "/readyz", "/metrics", "/openapi.json", "/docs"]

export const httpLayer = (options: {
  readonly port: number
  readonly host: string
  readonly adminToken: Redacted.Redacted<string>
  readonly limits: RequestLimits
  /** FRANK_CORS_ORIGINS: browser origins allowed to call the API (none: no CORS answers). */
  readonly corsOrigins?: ReadonlyArray<string> | undefined
}) =>
  // Every 429 is counted; a key refused by its own limit is refused before the API's stack until
  // its window ends, its early refusals logged once a window.
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const clock = yield* Effect.clock
      const metrics = yield* Metrics
      const label = makeRouteLabeler(HostApi, OPERATIONAL_ROUTES)
      const refusedKeys = makeRefusedKeys({ clock, rateLimited: metrics.rateLimited, routeOf: label })
      const sweeping = Layer.scopedDiscard(
        Effect.forkScoped(Effect.repeat(refusedKeys.sweep, Schedule.spaced("1 second")))
      )
      return Layer.merge(serving(options, refusedKeys, label), sweeping).pipe(
        Layer.provide(Layer.succeed(RateLimit.RateLimitRefusals, refusedKeys.listener)),
        // Revocations through this host release the key from the shortcut at once.
        Layer.provide(
          Layer.effect(
            Access.Access,
            Effect.map(Access.Access, (a) => releasingOnChange(a, refusedKeys))
          )
        )
      )
    })
  )

const serving = (
  options: Parameters<typeof httpLayer>[0],
  refusedKeys: ReturnType<typeof makeRefusedKeys>,
  label: ReturnType<typeof makeRouteLabeler>
) => {
  const ApiLive = HostApiLive(options.adminToken)
  const Served = Layer.unwrapScoped(
    Effect.gen(function* () {
      const metrics = yield* Metrics
      const tracing = yield* FiberRef.get(FiberRef.currentTracerEnabled)
      const observed = frankServerMiddleware((o) => {
        const route = label(o.method, o.path)
        const observe = metrics.observeRequest(o.method, route, o.status, o.durationMs)
        // The server span gets the route template, as the conventions name it. Without tracing
        // there is no span, and looking for one costs an Error's stack (core's internal/spans.ts).
        return tracing ? Effect.zipRight(Effect.annotateCurrentSpan("http.route", route), observe) : observe
      })
      const refuse = refuseCutOffBodies(options.limits)
      const timed = yield* answerWithin(options.limits)
      const served = HttpApiBuilder.serve((app) => observed(refuse(timed(app)))).pipe(
        Layer.provide(HealthRoutes(metrics.render)),
        Layer.provide(CheckoutRoutes),
        Layer.provide(CabinetRoutes),
        Layer.provide(SandboxBankRoutes),
        Layer.provide(PaymentNotificationRoute)
      )
      // With Effect's tracer off (no OTLP endpoint) the platform's per-request
      // server span would only cost CPU: a URL parse, a copy of the headers with redactions, the
      // span and its parent-span context. With tracing on it is the request's server span.
      return tracing ? served : HttpMiddleware.withTracerDisabledWhen(served, () => true)
    })
  )
  return Served.pipe(
    Layer.provide(DocsRoute("/docs")),
    Layer.provide(OpenApiRoute("/openapi.json")),
    Layer.provide(corsLayer(options.corsOrigins ?? [])),
    Layer.provide(ErrorEnvelopesLive),
    // Added after the envelopes, so it runs outside them: it sees the 500 envelope as an answer.
    Layer.provide(IdempotencyLive),
    Layer.provide(ApiLive),
    HttpServer.withLogAddress,
    Layer.provide(
      NodeHttpServer.layer(
        withRefusedKeys(
          guardedServer(options.limits, refusesMediaType(HostApi), earlyCors(options.corsOrigins ?? [])),
          refusedKeys.answer
        ),
        {
          port: options.port,
          host: options.host
        }
      )
    )
  )
}

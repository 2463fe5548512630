/**
 * The HTTP server of the host: partner API + admin API on one HttpApi, OpenAPI at /openapi.json,
 * the interactive reference at /docs (Swagger UI bundled in @effect/platform, no CDN), health,
 * readiness and metrics.
 */
import { HttpApiBuilder, HttpApiSwagger, HttpMiddleware, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { ErrorEnvelopesLive, frankServerMiddleware, PartnerHandlersLive, SecurityLive } from "@frank/core/http"
import { Effect, FiberRef, Layer, type Redacted } from "effect"
import { AdminAuthLive, AdminHandlers } from "../admin/AdminHandlers.js"
import { Metrics } from "../metrics/Metrics.js"
import { CheckoutRoutes } from "../sandbox/CheckoutRoutes.js"
import { SandboxBankRoutes } from "../sandbox/SandboxBankRoutes.js"
import { HealthRoutes } from "./HealthRoutes.js"
import { HostApi } from "./HostApi.js"
import { PaymentNotificationRoute } from "./PaymentNotificationRoute.js"
import { refuseCutOffBodies } from "./refusals.js"
import { guardedServer, type RequestLimits } from "./requestGuard.js"
import { makeRouteLabeler } from "./routeLabel.js"

const OPERATIONAL_ROUTES = ["/healthz", "/readyz", "/metrics", "/openapi.json", "/docs"]

export const httpLayer = (options: {
  readonly port: number
  readonly host: string
  readonly adminToken: Redacted.Redacted<string>
  readonly limits: RequestLimits
}) => {
  const ApiLive = HttpApiBuilder.api(HostApi).pipe(
    Layer.provide([PartnerHandlersLive, AdminHandlers]),
    Layer.provide([SecurityLive, AdminAuthLive(options.adminToken)])
  )
  const label = makeRouteLabeler(HostApi, OPERATIONAL_ROUTES)
  const Served = Layer.unwrapEffect(
    Effect.gen(function* () {
      const metrics = yield* Metrics
      const observed = frankServerMiddleware((o) =>
        metrics.observeRequest(o.method, label(o.method, o.path), o.status, o.durationMs)
      )
      const refuse = refuseCutOffBodies(options.limits)
      const served = HttpApiBuilder.serve((app) => observed(refuse(app))).pipe(
        Layer.provide(HealthRoutes(metrics.render)),
        Layer.provide(CheckoutRoutes),
        Layer.provide(SandboxBankRoutes),
        Layer.provide(PaymentNotificationRoute)
      )
      // With Effect's tracer off (the reference host has no exporter) the platform's per-request
      // server span would only cost CPU: a URL parse, a copy of the headers with redactions, the
      // span and its parent-span context. An embedder with tracing on keeps it.
      return (yield* FiberRef.get(FiberRef.currentTracerEnabled))
        ? served
        : HttpMiddleware.withTracerDisabledWhen(served, () => true)
    })
  )
  return Served.pipe(
    Layer.provide(HttpApiSwagger.layer({ path: "/docs" })),
    Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
    Layer.provide(ErrorEnvelopesLive),
    Layer.provide(ApiLive),
    HttpServer.withLogAddress,
    Layer.provide(NodeHttpServer.layer(guardedServer(options.limits), { port: options.port, host: options.host }))
  )
}

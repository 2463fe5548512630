/**
 * The HTTP server of the host: partner API + admin API on one HttpApi, OpenAPI at /openapi.json,
 * the interactive reference at /docs (Swagger UI bundled in @effect/platform, no CDN), health,
 * readiness and metrics.
 */
import { createServer } from "node:http"
import { HttpApiBuilder, HttpApiSwagger, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { ErrorEnvelopesLive, frankServerMiddleware, PartnerHandlersLive, SecurityLive } from "@frank/core/http"
import { Effect, Layer, type Redacted } from "effect"
import { AdminAuthLive, AdminHandlers } from "../admin/AdminHandlers.js"
import { Metrics } from "../metrics/Metrics.js"
import { CheckoutRoutes } from "../sandbox/CheckoutRoutes.js"
import { HealthRoutes } from "./HealthRoutes.js"
import { HostApi } from "./HostApi.js"
import { PaymentNotificationRoute } from "./PaymentNotificationRoute.js"
import { makeRouteLabeler } from "./routeLabel.js"

const OPERATIONAL_ROUTES = ["/healthz", "/readyz", "/metrics", "/openapi.json", "/docs"]

export const httpLayer = (options: { readonly port: number; readonly host: string; readonly adminToken: Redacted.Redacted<string> }) => {
  const ApiLive = HttpApiBuilder.api(HostApi).pipe(
    Layer.provide([PartnerHandlersLive, AdminHandlers]),
    Layer.provide([SecurityLive, AdminAuthLive(options.adminToken)])
  )
  const label = makeRouteLabeler(HostApi, OPERATIONAL_ROUTES)
  const Served = Layer.unwrapEffect(
    Effect.map(Metrics, (metrics) =>
      HttpApiBuilder.serve(
        frankServerMiddleware((o) => metrics.observeRequest(o.method, label(o.method, o.path), o.status, o.durationMs))
      ).pipe(Layer.provide(HealthRoutes(metrics.render)), Layer.provide(CheckoutRoutes), Layer.provide(PaymentNotificationRoute))
    )
  )
  return Served.pipe(
    Layer.provide(HttpApiSwagger.layer({ path: "/docs" })),
    Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
    Layer.provide(ErrorEnvelopesLive),
    Layer.provide(ApiLive),
    HttpServer.withLogAddress,
    Layer.provide(NodeHttpServer.layer(createServer, { port: options.port, host: options.host }))
  )
}

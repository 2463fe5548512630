/**
 * Operational routes outside the partner API: liveness, readiness and Prometheus metrics.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { Readiness } from "./Readiness.js"

export const HealthRoutes = (renderMetrics: Effect.Effect<{ readonly contentType: string; readonly body: string }>) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const readiness = yield* Readiness
      yield* router.get("/healthz", HttpServerResponse.json({ status: "ok" }))
      yield* router.get(
        "/readyz",
        Effect.flatMap(readiness.check, (problem) =>
          problem === undefined
            ? HttpServerResponse.json({ status: "ready" })
            : HttpServerResponse.json({ status: "not_ready", reason: problem }, { status: 503 })
        )
      )
      yield* router.get(
        "/metrics",
        Effect.map(renderMetrics, ({ contentType, body }) => HttpServerResponse.text(body, { contentType }))
      )
    })
  )

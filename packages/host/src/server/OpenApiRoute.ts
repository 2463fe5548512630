/**
 * GET /openapi.json: the API's OpenAPI document, built on its first request and kept. The
 * platform's `middlewareOpenApi` builds it while the server starts: a walk over every endpoint's
 * schemas (tens of ms of the start) whose document and JSON then stay resident in every host,
 * whether anyone reads them or not. The answer is the same.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import { Effect, type Layer } from "effect"

export const OpenApiRoute = (path: `/${string}`): Layer.Layer<never, never, HttpApi.Api> =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const { api } = yield* HttpApi.Api
      const document = yield* Effect.cached(
        Effect.suspend(() => HttpServerResponse.json(OpenApi.fromApi(api))).pipe(Effect.orDie)
      )
      yield* router.get(path, document)
    })
  )

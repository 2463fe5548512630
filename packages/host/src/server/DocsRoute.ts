/**
 * GET /docs: the interactive API reference (Swagger UI, bundled in @effect/platform, no CDN),
 * loaded on its first request. Its module holds the 3.4 MiB Swagger bundle as a string and the
 * page built from it; importing it at start kept about 9 MiB resident in every host, docs read
 * or not.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, type Layer, Scope } from "effect"

export const DocsRoute = (path: `/${string}`): Layer.Layer<never, never, HttpApi.Api> =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const { api } = yield* HttpApi.Api
      // The page's own router lives as long as the host's: built once, in the layer's scope.
      const scope = yield* Effect.scope
      const page = yield* Effect.cached(
        Effect.promise(() => import("./internal/docsPage.js")).pipe(
          Effect.flatMap(({ docsPage }) => Scope.extend(docsPage(api, path), scope))
        )
      )
      yield* router.get(path, Effect.flatten(page))
    })
  )

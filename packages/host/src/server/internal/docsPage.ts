/** The Swagger UI page of an HttpApi, as @effect/platform renders it; imported on demand. */
import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiSwagger from "@effect/platform/HttpApiSwagger"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"

export const docsPage = (api: HttpApi.HttpApi.Any, path: `/${string}`) =>
  HttpLayerRouter.toHttpEffect(HttpApiSwagger.layerHttpLayerRouter({ api, path }))

/**
 * The partner cabinet at /cabinet, on the host's own server: the adapters' cabinet router with
 * the host's settings (Secure cookie when the public base URL is https; proxy trust as for the API).
 */
import { HttpApiBuilder } from "@effect/platform"
import { makeCabinetRouter } from "@frank/adapters"
import { Effect } from "effect"
import { HostConfig } from "../config/HostConfig.js"

export const CABINET_PATH = "/cabinet"

export const CabinetRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const config = yield* HostConfig
    const cabinet = yield* makeCabinetRouter({
      basePath: CABINET_PATH,
      secureCookie: config.publicBaseUrl.startsWith("https:"),
      trustProxy: config.trustProxy,
      trustedOrigins: [config.publicBaseUrl]
    })
    yield* router.concat(cabinet)
  })
)

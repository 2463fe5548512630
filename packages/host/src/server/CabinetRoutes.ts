/**
 * The partner cabinet at /cabinet, on the host's own server: the adapters' cabinet router with
 * the host's settings (Secure cookie when the public base URL is https; proxy trust as for the API).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Cabinet } from "@frank/adapters"
// biome-ignore lint/correctness/noUnusedImports: the declaration emit names the cabinet's services in this layer's type through them
import type {
  Access,
  Audit,
  Invoices,
  Ledger,
  Payments,
  Pricing,
  RateLimit,
  Tariffs,
  Tasks,
  Webhooks
} from "@frank/core"
import { Effect } from "effect"
import { HostConfig } from "../config/HostConfig.js"

export const CABINET_PATH = "/cabinet"

export const CabinetRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const config = yield* HostConfig
    const cabinet = yield* Cabinet.makeRouter({
      basePath: CABINET_PATH,
      secureCookie: config.publicBaseUrl.startsWith("https:"),
      trustProxy: config.trustProxy,
      trustedOrigins: [config.publicBaseUrl]
    })
    yield* router.concat(cabinet)
  })
)

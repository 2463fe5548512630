/**
 * The partner cabinet as one HttpRouter an embedder mounts under its own path: server-rendered
 * pages backed by the engine's services, behind the session guard (CSRF, session, 60/min limit).
 * The reference host mounts it at /cabinet; `examples/cabinet-embed` mounts it in a plain Node
 * server with its own way of minting sessions.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
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
import type { CabinetOptions } from "./CabinetOptions.js"
import { makeGuard } from "./CabinetRequest.js"
import { assetResponse } from "./assets.js"
import { auditRoutes } from "./pages/AuditPage.js"
import { invoicesRoutes } from "./pages/InvoicesPage.js"
import { keysRoutes } from "./pages/KeysPage.js"
import { overviewRoutes } from "./pages/OverviewPage.js"
import { pricesRoutes } from "./pages/PricesPage.js"
import { settingsRoutes } from "./pages/SettingsPage.js"
import { tasksRoutes } from "./pages/TasksPage.js"
import { topUpsRoutes } from "./pages/TopUpsPage.js"
import { transactionsRoutes } from "./pages/TransactionsPage.js"
import { webhookCatalogRoutes } from "./pages/WebhookCatalogPage.js"
import { webhookEndpointRoutes } from "./pages/WebhookEndpointPage.js"
import { webhookMessageRoutes } from "./pages/WebhookMessagePage.js"
import { webhooksRoutes } from "./pages/WebhooksPage.js"
import type { CabinetRoute } from "./routes.js"
import { makeSignInRoutes } from "./SignInRoutes.js"

const pageModules = [
  overviewRoutes,
  transactionsRoutes,
  keysRoutes,
  webhooksRoutes,
  webhookEndpointRoutes,
  webhookMessageRoutes,
  webhookCatalogRoutes,
  topUpsRoutes,
  invoicesRoutes,
  tasksRoutes,
  pricesRoutes,
  settingsRoutes,
  auditRoutes
] as const

/**
 * The engine services the cabinet's pages use. Named here so the router's declared type can name
 * them (declaration emit names a namespace's types only where the file imports the namespace).
 */
export type CabinetServices =
  | Access.Access
  | Audit.AuditLog
  | Invoices.Invoices
  | Ledger.Ledger
  | Payments.Payments
  | Pricing.Pricing
  | RateLimit.RateLimiter
  | Tariffs.Tariffs
  | Tasks.Tasks
  | Webhooks.Webhooks

/** Builds the cabinet's router; needs the engine services its pages use (`CabinetServices`). */
export const makeRouter = (options: CabinetOptions) =>
  Effect.gen(function* () {
    const base = options.basePath as `/${string}`
    const guard = (yield* makeGuard)(options)
    const sign = yield* makeSignInRoutes(options)
    const pages: ReadonlyArray<CabinetRoute> = (yield* Effect.all(pageModules)).flat()
    let router = HttpRouter.empty.pipe(
      HttpRouter.get(`${base}/sign-in`, sign.signIn),
      HttpRouter.post(`${base}/sign-out`, sign.signOut),
      HttpRouter.get(`${base}/signed-out`, sign.signedOut),
      HttpRouter.get(
        `${base}/assets/:name`,
        Effect.map(HttpRouter.params, (p) => assetResponse(p.name ?? ""))
      )
    )
    for (const route of pages) {
      const handler = guard(route.path, route.handler)
      const path = `${base}${route.path}` as `/${string}`
      router = route.method === "GET" ? HttpRouter.get(router, path, handler) : HttpRouter.post(router, path, handler)
    }
    return router
  })

export type CabinetRouter = Effect.Effect.Success<ReturnType<typeof makeRouter>>

export { type CabinetOptions, SESSION_COOKIE, signInUrl } from "./CabinetOptions.js"

/**
 * Embedding the partner cabinet in your own plain Node server: the cabinet is mounted under
 * /billing/portal, next to the routes the server already has, and sessions are minted by the
 * server's own sign-in (here a stand-in: `/login?partner=<id>` after your real authentication).
 * The engine runs on memory stores; swap in the SQL stores (see packages/host/src/engine.ts) for
 * a real deployment.
 *
 *   node --conditions=@frank/source --import tsx examples/cabinet-embed/server.ts      # then open http://127.0.0.1:8090/
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import {
  Cabinet,
  MemoryAccessStores,
  MemoryRateLimitStore,
  MemorySandboxAcquirerStore,
  NodeSecrets,
  SandboxAcquirer
} from "@frank/adapters"
import { Access, Audit, Events, Ids, Ledger, Payments, Pricing, RateLimit, Tariffs, Webhooks } from "@frank/core"
import {
  InvoicesOnMemory,
  MemoryAuditStore,
  MemoryLedgerStore,
  MemoryPaymentStore,
  MemoryWebhookStore,
  TasksOnMemory
} from "@frank/core/testing"
import { Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"

export const PORTAL = "/billing/portal"

/** The engine services the cabinet reads and acts through, all in memory. */
export const EngineOnMemory = (baseUrl: string) => {
  const pepper = Redacted.make("example-pepper-change-me")
  const services = Layer.mergeAll(
    Access.Access.layer,
    RateLimit.RateLimiter.layer(RateLimit.defaultRateLimitConfig),
    Webhooks.Webhooks.layer,
    Payments.Payments.layer.pipe(
      Layer.provideMerge(SandboxAcquirer.layer({ baseUrl, secret: pepper })),
      Layer.provideMerge(Layer.merge(MemorySandboxAcquirerStore.layer, MemoryPaymentStore))
    ),
    InvoicesOnMemory,
    TasksOnMemory(baseUrl)
  )
  return services.pipe(
    Layer.provideMerge(Layer.merge(Ledger.Ledger.layer, Tariffs.Tariffs.layer(Tariffs.defaultTariffConfig))),
    // The audit log the cabinet's audit page reads (wrap services in Audit.Audited* to fill it).
    Layer.provideMerge(Audit.AuditLog.layer),
    Layer.provideMerge(Events.Outbox.layerWithWakeup),
    Layer.provideMerge(
      Layer.mergeAll(
        MemoryAuditStore,
        MemoryLedgerStore,
        MemoryWebhookStore.layer,
        MemoryAccessStores.layer,
        MemoryRateLimitStore.layer
      )
    ),
    Layer.provideMerge(
      Layer.mergeAll(
        Ids.Ids.layer,
        NodeSecrets.layer(pepper),
        Pricing.Pricing.layerFromCatalog(Pricing.sampleCatalog),
        Webhooks.WebhookSettings.layer({ allowPrivateNetwork: false })
      )
    )
  )
}

/** Starts the example server; answers its URL, the engine runtime and a stop function. */
export const startExample = async (port = 8090) => {
  const baseUrl = `http://127.0.0.1:${port}`
  const runtime = ManagedRuntime.make(EngineOnMemory(baseUrl))
  const cabinet = await runtime.runPromise(
    Effect.flatMap(Cabinet.makeRouter({ basePath: PORTAL, secureCookie: false, trustProxy: false }), (router) =>
      NodeHttpServer.makeHandler(router)
    ).pipe(Effect.scoped)
  )
  const access = await runtime.runPromise(Access.Access)

  // Your own sign-in: after authenticating the user, open a cabinet session for their partner.
  const login = async (req: IncomingMessage, res: ServerResponse) => {
    const partnerId = Ids.parseId(Ids.PartnerId)(new URL(req.url ?? "/", baseUrl).searchParams.get("partner") ?? "")
    if (Option.isNone(partnerId)) return void res.writeHead(404).end("unknown partner")
    const session = await runtime.runPromise(Effect.either(access.createSession(partnerId.value, 3600)))
    if (session._tag === "Left") return void res.writeHead(404).end("unknown partner")
    res.writeHead(303, {
      location: `${PORTAL}/`,
      "set-cookie": `${Cabinet.SESSION_COOKIE}=${session.right.token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=3600`
    })
    res.end()
  }

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", baseUrl).pathname
    if (path === PORTAL || path.startsWith(`${PORTAL}/`)) return cabinet(req, res)
    if (path === "/login") return void login(req, res)
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("your existing application\n")
  })
  await new Promise<void>((done) => server.listen(port, "127.0.0.1", done))
  return {
    baseUrl,
    runtime,
    stop: async () => {
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
      await runtime.dispose()
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { baseUrl, runtime } = await startExample(Number(process.env.PORT ?? 8090))
  const partner = await runtime.runPromise(Effect.flatMap(Access.Access, (a) => a.createPartner("Example LLC")))
  console.log(`sign in: ${baseUrl}/login?partner=${partner.id}`)
}

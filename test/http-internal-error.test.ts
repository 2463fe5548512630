/**
 * The partner API served in-process on memory stores (the way an embedder mounts it), with a
 * ledger store that breaks: the client gets the 500 envelope with a request id and nothing of the
 * cause; the log line with that request id has the cause.
 */
import { HttpApiBuilder, HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { MemoryAccessStores, MemoryRateLimitStore, MemorySandboxAcquirerStore, SandboxAcquirer } from "@frank/adapters"
import { Access, Audit, Errors, Ids, Ledger, Payments, Pricing, RateLimit, Tariffs, Webhooks } from "@frank/core"
import { ErrorEnvelopesLive, frankServerMiddleware, PartnerApiLive, SecuritySettings } from "@frank/core/http"
import {
  FilesOnMemory,
  InvoicesOnMemory,
  MemoryAuditStore,
  MemoryPaymentStore,
  makeMemoryLedgerStore,
  OutboxOnMemory,
  TasksOnMemory
} from "@frank/core/testing"
import { expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Logger, Redacted } from "effect"
import { LedgerStore, TariffStore } from "@frank/core/stores"

const logged: Array<{ message: unknown; annotations: Record<string, unknown>; cause: string }> = []
const CapturingLogger = Logger.replace(
  Logger.defaultLogger,
  Logger.make(({ message, annotations, cause }) => {
    logged.push({ message, annotations: Object.fromEntries(annotations), cause: String(cause) })
  })
)

/** A ledger store whose balance read fails like a lost database connection. */
const BrokenBalances = Layer.effectContext(
  Effect.map(makeMemoryLedgerStore, (store) =>
    Context.make(LedgerStore, {
      ...store,
      totals: () =>
        Effect.fail(
          new Errors.StoreError({
            message: "ledger store: totals failed",
            cause: new Error("connection to 10.0.0.5:5432 refused")
          })
        )
    }).pipe(Context.add(TariffStore, store))
  )
)

const Services = Layer.mergeAll(
  Ledger.Ledger.layer,
  Access.Access.layer,
  RateLimit.RateLimiter.layer(RateLimit.defaultRateLimitConfig),
  Tariffs.Tariffs.layer(Tariffs.defaultTariffConfig),
  Webhooks.Webhooks.layer
).pipe(
  Layer.provideMerge(Audit.AuditLog.layer),
  Layer.provideMerge(OutboxOnMemory),
  Layer.provideMerge(
    Layer.mergeAll(BrokenBalances, MemoryAuditStore, MemoryAccessStores.layer, MemoryRateLimitStore.layer)
  ),
  Layer.provideMerge(
    Layer.mergeAll(
      Ids.Ids.layer,
      Access.Secrets.layer(Redacted.make("pepper")),
      Pricing.Pricing.layerFromCatalog(Pricing.sampleCatalog),
      Layer.succeed(SecuritySettings, { trustProxy: false }),
      Webhooks.WebhookSettings.layerProduction
    )
  )
)

/** Top-ups on memory with the sandbox acquirer (the partner API serves the payment endpoints too). */
const TopUps = Payments.Payments.layer.pipe(
  Layer.provide(SandboxAcquirer.layer({ baseUrl: "http://embedded.test", secret: Redacted.make("sandbox") })),
  Layer.provide(Layer.mergeAll(MemoryPaymentStore, MemorySandboxAcquirerStore.layer))
)

const Server = HttpApiBuilder.serve(frankServerMiddleware()).pipe(
  Layer.provide(ErrorEnvelopesLive),
  Layer.provide(PartnerApiLive),
  Layer.provideMerge(TopUps),
  Layer.provideMerge(InvoicesOnMemory),
  Layer.provideMerge(FilesOnMemory()),
  Layer.provideMerge(TasksOnMemory()),
  Layer.provideMerge(Services),
  Layer.provideMerge(NodeHttpServer.layerTest)
)

it.live("a broken store answers 500 INTERNAL_ERROR with a request id, and logs the cause under it", () =>
  Effect.gen(function* () {
    const access = yield* Access.Access
    const partner = yield* access.createPartner("Embedded LLC")
    const key = yield* access.issueKey(partner.id, {})
    const client = yield* HttpClient.HttpClient
    const res = yield* client.execute(
      HttpClientRequest.get("/v1/billing/balance").pipe(HttpClientRequest.setHeader("x-api-key", key.raw))
    )
    const text = yield* res.text
    expect(res.status).toBe(500)
    const body = JSON.parse(text)
    expect(body).toMatchObject({ statusCode: 500, code: "INTERNAL_ERROR" })
    expect(body.requestId).toBe(res.headers["x-request-id"])
    expect(text).not.toMatch(/StoreError|refused|10\.0\.0\.5|at /)
    const line = logged.find(
      (l) => l.annotations.requestId === body.requestId && String(l.message).includes("request failed")
    )
    expect(line?.cause).toContain("ledger store: totals failed")
    expect(line?.annotations.causeChain).toContain("connection to 10.0.0.5:5432 refused")
    // The server keeps serving.
    const ok = yield* client.execute(
      HttpClientRequest.get("/v1/auth/check").pipe(HttpClientRequest.setHeader("x-api-key", key.raw))
    )
    expect(ok.status).toBe(200)
  }).pipe(Effect.provide(Server), Effect.provide(CapturingLogger), Effect.scoped)
)

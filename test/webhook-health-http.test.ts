/**
 * The partner API's side of endpoint health and the event catalog, served in-process on memory
 * stores (as an embedder mounts it): the endpoint resource carries `lastSuccessAt`,
 * `failingSince`, `disabledAt` and `disabledReason` on create, PATCH and the list, and
 * `GET /v1/webhooks/event-types` answers the catalog to a key holding `webhooks:read` only.
 */
import { HttpApiBuilder, HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { MemoryAccessStores, MemoryRateLimitStore, MemorySandboxAcquirerStore, SandboxAcquirer } from "@frank/adapters"
import {
  Access,
  defaultRateLimitConfig,
  defaultTariffConfig,
  eventCatalog,
  Ids,
  Ledger,
  Payments,
  Pricing,
  RateLimiter,
  sampleCatalog,
  Secrets,
  Tariffs,
  Webhooks,
  WebhookSettings
} from "@frank/core"
import { ErrorEnvelopesLive, frankServerMiddleware, PartnerApiLive, SecuritySettings } from "@frank/core/http"
import {
  FilesOnMemory,
  InvoicesOnMemory,
  MemoryLedgerStore,
  MemoryPaymentStore,
  OutboxOnMemory,
  TasksOnMemory
} from "@frank/core/testing"
import { expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { dataViolations } from "./support/eventCatalogCheck.js"

const Services = Layer.mergeAll(
  Ledger.layer,
  Access.layer,
  RateLimiter.layer(defaultRateLimitConfig),
  Tariffs.layer(defaultTariffConfig),
  Webhooks.layer
).pipe(
  Layer.provideMerge(OutboxOnMemory),
  Layer.provideMerge(Layer.mergeAll(MemoryLedgerStore, MemoryAccessStores, MemoryRateLimitStore)),
  Layer.provideMerge(
    Layer.mergeAll(
      Ids.layer,
      Secrets.layer(Redacted.make("pepper")),
      Pricing.layerFromCatalog(sampleCatalog),
      Layer.succeed(SecuritySettings, { trustProxy: false }),
      WebhookSettings.layerProduction
    )
  )
)

const TopUps = Payments.layer.pipe(
  Layer.provide(SandboxAcquirer.layer({ baseUrl: "http://embedded.test", secret: Redacted.make("sandbox") })),
  Layer.provide(Layer.mergeAll(MemoryPaymentStore, MemorySandboxAcquirerStore))
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

const send = (key: string, method: "GET" | "POST" | "PATCH", path: string, body?: unknown) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const base = HttpClientRequest.make(method)(path).pipe(HttpClientRequest.setHeader("x-api-key", key))
    const req = body === undefined ? base : yield* HttpClientRequest.bodyJson(base, body)
    const res = yield* client.execute(req)
    return { status: res.status, json: JSON.parse(yield* res.text) }
  })

it.live("the endpoint resource shows its health; GET /v1/webhooks/event-types serves the catalog", () =>
  Effect.gen(function* () {
    const access = yield* Access
    const partner = yield* access.createPartner("Health LLC")
    const full = (yield* access.issueKey(partner.id, {})).raw
    const reader = (yield* access.issueKey(partner.id, { scopes: ["webhooks:read"] })).raw
    const billing = (yield* access.issueKey(partner.id, { scopes: ["billing:read"] })).raw

    const created = yield* send(full, "POST", "/v1/webhooks/endpoints", { url: "https://hooks.partner.example/frank" })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({
      lastSuccessAt: null,
      failingSince: null,
      disabledAt: null,
      disabledReason: null
    })
    const id = created.json.id as string

    const paused = yield* send(full, "PATCH", `/v1/webhooks/endpoints/${id}`, { active: false })
    expect(paused.status).toBe(200)
    expect(paused.json.active).toBe(false)
    expect(Date.parse(paused.json.disabledAt)).toBeGreaterThan(0)
    expect(paused.json.disabledReason).toBeNull()
    const listed = yield* send(reader, "GET", "/v1/webhooks/endpoints")
    expect(listed.json.items[0]).toMatchObject({ id, disabledAt: paused.json.disabledAt, disabledReason: null })
    const resumed = yield* send(full, "PATCH", `/v1/webhooks/endpoints/${id}`, { active: true })
    expect(resumed.json).toMatchObject({ active: true, disabledAt: null, disabledReason: null })

    const catalog = yield* send(reader, "GET", "/v1/webhooks/event-types")
    expect(catalog.status).toBe(200)
    expect(catalog.json).toEqual(JSON.parse(JSON.stringify({ items: eventCatalog })))
    for (const entry of catalog.json.items) expect(dataViolations(entry.type, entry.example)).toEqual([])
    // Every type the catalog lists is one an endpoint may subscribe to.
    const subscribed = yield* send(full, "POST", "/v1/webhooks/endpoints", {
      url: "https://hooks.partner.example/all-of-them",
      eventTypes: catalog.json.items.map((e: { type: string }) => e.type)
    })
    expect(subscribed.status).toBe(201)

    const refused = yield* send(billing, "GET", "/v1/webhooks/event-types")
    expect(refused.status).toBe(403)
    expect(refused.json.code).toBe("API_KEY_SCOPE_REQUIRED")
  }).pipe(Effect.provide(Server), Effect.scoped)
)

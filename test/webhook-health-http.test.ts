/**
 * The partner API's side of endpoint health and the event catalog, served in-process on memory
 * stores (as an embedder mounts it): the endpoint resource carries `lastSuccessAt`,
 * `failingSince`, `disabledAt` and `disabledReason` on create, PATCH and the list, and
 * `GET /v1/webhooks/event-types` answers the catalog to a key holding `webhooks:read` only.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Access, Events } from "@frank/core"
import { MemoryLedgerStore, MemoryWebhookStore } from "@frank/core/testing"
import { expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { dataViolations } from "./support/eventCatalogCheck.js"
import { partnerApiServer } from "./support/partnerApiServer.js"

const Server = partnerApiServer(Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore.layer))

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
    const access = yield* Access.Access
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
    expect(catalog.json).toEqual(JSON.parse(JSON.stringify({ items: Events.eventCatalog })))
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

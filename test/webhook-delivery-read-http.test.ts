/**
 * The partner API's read of one delivery (`GET /v1/webhooks/deliveries/{id}`), served in-process
 * on memory stores: the delivery as listed plus its event's payload and its attempts, 404 for an
 * unknown or malformed id and for another partner's, the list's `eventType` filter, and the
 * OpenAPI document naming the new read and its attempt fields.
 */
import { HttpClient, HttpClientRequest, OpenApi } from "@effect/platform"
import { Access } from "@frank/core"
import { PartnerApi } from "@frank/core/http"
import { MemoryLedgerStore, MemoryWebhookStore } from "@frank/core/testing"
import { expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { partnerApiServer } from "./support/partnerApiServer.js"

const Server = partnerApiServer(Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore.layer))

const send = (key: string, method: "GET" | "POST", path: string, body?: unknown) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const base = HttpClientRequest.make(method)(path).pipe(HttpClientRequest.setHeader("x-api-key", key))
    const req = body === undefined ? base : yield* HttpClientRequest.bodyJson(base, body)
    const res = yield* client.execute(req)
    return { status: res.status, json: JSON.parse(yield* res.text) }
  })

it.live("GET /v1/webhooks/deliveries/{id} answers the delivery with its payload and attempts", () =>
  Effect.gen(function* () {
    const access = yield* Access.Access
    const partner = yield* access.createPartner("Reader LLC")
    const other = yield* access.createPartner("Other LLC")
    const key = (yield* access.issueKey(partner.id, {})).raw
    const otherKey = (yield* access.issueKey(other.id, {})).raw
    const created = yield* send(key, "POST", "/v1/webhooks/endpoints", { url: "https://hooks.partner.example/read" })
    const test = yield* send(key, "POST", `/v1/webhooks/endpoints/${created.json.id}/test`)
    expect(test.status).toBe(200)

    const list = yield* send(key, "GET", "/v1/webhooks/deliveries?eventType=webhook.test")
    expect(list.json.shown).toBe(1)
    const none = yield* send(key, "GET", "/v1/webhooks/deliveries?eventType=billing.settled")
    expect(none.json.shown).toBe(0)
    const listed = list.json.deliveries[0]
    const read = yield* send(key, "GET", `/v1/webhooks/deliveries/${listed.id}`)
    expect(read.status).toBe(200)
    expect(read.json).toMatchObject(listed)
    expect(read.json.payload).toMatchObject({ eventId: test.json.eventId, eventType: "webhook.test" })
    expect(read.json.payload.data).toEqual({ endpointId: created.json.id })
    // Not attempted yet: this server runs no worker.
    expect(read.json.attemptLog).toEqual([])

    for (const [who, id] of [
      [otherKey, listed.id],
      [key, "00000000-0000-4000-8000-000000000999"],
      [key, "not-an-id"]
    ] as const) {
      const missing = yield* send(who, "GET", `/v1/webhooks/deliveries/${id}`)
      expect(missing.status).toBe(404)
      expect(missing.json.code).toBe("DELIVERY_NOT_FOUND")
    }

    const doc = OpenApi.fromApi(PartnerApi) as unknown as {
      paths: Record<string, Record<string, unknown>>
      components: { schemas: Record<string, { properties: Record<string, unknown> }> }
    }
    expect(doc.paths["/v1/webhooks/deliveries/{id}"]?.get).toBeDefined()
    expect(Object.keys(doc.components.schemas.WebhookDeliveryAttempt?.properties ?? {})).toEqual([
      "attempt",
      "startedAt",
      "durationMs",
      "responseStatus",
      "responseBody",
      "error"
    ])
  }).pipe(Effect.provide(Server), Effect.scoped)
)

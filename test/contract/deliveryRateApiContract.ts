/**
 * The endpoint field `rateLimitPerSecond` over HTTP, on every store: set on create and PATCH,
 * shown by the list and GET one, null when unlimited, WEBHOOK_RATE_LIMIT_INVALID for a value
 * outside 1..10,000 or not whole; and described in the OpenAPI document.
 */
import { randomUUID } from "node:crypto"
import { HttpClient, HttpClientRequest, OpenApi } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Access } from "@frank/core"
import { PartnerApi } from "@frank/core/http"
import type { EngineStores } from "@frank/core/testing"
import { Effect, type Layer } from "effect"
import { partnerApiServer } from "../support/partnerApiServer.js"

const partnerClient = Effect.gen(function* () {
  const access = yield* Access.Access
  const partner = yield* access.createPartner(`Rates ${randomUUID().slice(0, 8)}`)
  const key = yield* access.issueKey(partner.id, {})
  const client = yield* HttpClient.HttpClient
  return (method: "GET" | "POST" | "PATCH", path: string, body?: unknown) =>
    Effect.gen(function* () {
      let req = HttpClientRequest.make(method)(path).pipe(HttpClientRequest.setHeader("x-api-key", key.raw))
      if (body !== undefined) req = yield* HttpClientRequest.bodyJson(req, body)
      const res = yield* client.execute(req)
      const text = yield* res.text
      // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers
      return { status: res.status, text, json: (text === "" ? undefined : JSON.parse(text)) as any }
    }).pipe(Effect.orDie)
})

const newUrl = () => `https://hooks-${randomUUID().slice(0, 8)}.example.com/in`

export const deliveryRateApiContract = (engine: string, stores: Layer.Layer<EngineStores, unknown>) => {
  layer(partnerApiServer(stores), { timeout: 120_000, excludeTestServices: true })(
    `rateLimitPerSecond over HTTP on ${engine}`,
    (it) => {
      it.effect("create, PATCH, list and GET one; bad values answer WEBHOOK_RATE_LIMIT_INVALID", () =>
        Effect.gen(function* () {
          const request = yield* partnerClient
          const plain = yield* request("POST", "/v1/webhooks/endpoints", { url: newUrl() })
          expect(plain.status, plain.text).toBe(201)
          expect(plain.json.rateLimitPerSecond).toBeNull()
          const limited = yield* request("POST", "/v1/webhooks/endpoints", { url: newUrl(), rateLimitPerSecond: 5 })
          expect(limited.status, limited.text).toBe(201)
          expect(limited.json.rateLimitPerSecond).toBe(5)
          const path = `/v1/webhooks/endpoints/${limited.json.id}`
          expect((yield* request("GET", path)).json.rateLimitPerSecond).toBe(5)
          for (const bad of [0, 10_001, 1.5, -3]) {
            for (const [method, at] of [
              ["POST", "/v1/webhooks/endpoints"],
              ["PATCH", path]
            ] as const) {
              const refused = yield* request(method, at, { url: newUrl(), rateLimitPerSecond: bad })
              expect(refused.status, refused.text).toBe(400)
              expect(refused.json.code).toBe("WEBHOOK_RATE_LIMIT_INVALID")
            }
          }
          const changed = yield* request("PATCH", path, { rateLimitPerSecond: 10_000 })
          expect(changed.status, changed.text).toBe(200)
          expect(changed.json.rateLimitPerSecond).toBe(10_000)
          // Other fields leave it alone; null removes it.
          expect((yield* request("PATCH", path, { active: true })).json.rateLimitPerSecond).toBe(10_000)
          expect((yield* request("PATCH", path, { rateLimitPerSecond: null })).json.rateLimitPerSecond).toBeNull()
          const list = yield* request("GET", "/v1/webhooks/endpoints")
          expect(list.json.items.map((e: { rateLimitPerSecond: number | null }) => e.rateLimitPerSecond)).toEqual([
            null,
            null
          ])
        })
      )
    }
  )
}

/** The OpenAPI document describes the field on the endpoint and both requests. */
export const openApiRate = () => {
  const spec = OpenApi.fromApi(PartnerApi) as unknown as {
    components: { schemas: Record<string, { properties?: Record<string, { description?: string }> }> }
  }
  return ["WebhookEndpoint", "CreateWebhookEndpointRequest", "UpdateWebhookEndpointRequest"].map(
    (name) => spec.components.schemas[name]?.properties?.rateLimitPerSecond?.description ?? ""
  )
}

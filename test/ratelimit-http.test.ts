/**
 * Rate-limit refusals over HTTP, served in-process on memory stores: a refusal is decided before
 * the body is decoded, and a request is authenticated and counted once although the platform
 * tries both API-key schemes (X-API-Key, then Bearer) when the first one fails.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Access } from "@frank/core"
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
    return { status: res.status, headers: res.headers, json: JSON.parse(yield* res.text) }
  })

it.live("an unknown key is counted once against the per-IP limit, not once per scheme", () =>
  Effect.gen(function* () {
    const first = yield* send(`svc_live_${"0".repeat(64)}`, "GET", "/v1/billing/balance")
    expect(first.status).toBe(401)
    expect(first.headers["ratelimit-limit"]).toBe("100")
    expect(first.headers["ratelimit-remaining"]).toBe("99")
    const second = yield* send(`svc_live_${"0".repeat(64)}`, "GET", "/v1/billing/balance")
    expect(second.headers["ratelimit-remaining"]).toBe("98")
  }).pipe(Effect.provide(Server))
)

it.live("past the key's 60 a minute every request answers 429 with Retry-After, even one whose body is invalid", () =>
  Effect.gen(function* () {
    const access = yield* Access.Access
    const partner = yield* access.createPartner("Flood LLC")
    const key = (yield* access.issueKey(partner.id, {})).raw
    for (let i = 0; i < 60; i++) expect((yield* send(key, "GET", "/v1/billing/balance")).status).toBe(200)
    for (let i = 0; i < 5; i++) {
      const refused = yield* send(key, "GET", "/v1/billing/balance")
      expect(refused.status).toBe(429)
      expect(refused.json).toMatchObject({ statusCode: 429, code: "RATE_LIMITED" })
      expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1)
      expect(refused.headers["ratelimit-remaining"]).toBe("0")
    }
    // Refused before decoding: the body's problems are not reported (a 400 would mean it was read).
    const invalid = yield* send(key, "POST", "/v1/webhooks/endpoints", { url: 42 })
    expect(invalid.status).toBe(429)
  }).pipe(Effect.provide(Server))
)

/**
 * Request bodies on the partner API as an embedder mounts it (in-process, memory stores), issue
 * 31: only `application/json` is read, any other type on an operation with a body answers 415
 * at once (it used to leave the request unanswered), and operations without a body ignore it.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Access } from "@frank/core"
import { isJsonMediaType } from "@frank/core/http"
import { MemoryLedgerStore, MemoryWebhookStore } from "@frank/core/testing"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { partnerApiServer } from "./support/partnerApiServer.js"

const Server = partnerApiServer(Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore.layer))

const send = (key: string, method: "GET" | "POST", path: string, contentType: string | undefined, body: string) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const base = HttpClientRequest.make(method)(path).pipe(HttpClientRequest.setHeader("x-api-key", key))
    const req =
      method === "GET" ? base : HttpClientRequest.bodyUint8Array(base, new TextEncoder().encode(body), contentType)
    const res = yield* client.execute(req)
    return { status: res.status, json: JSON.parse(yield* res.text), connection: res.headers.connection }
  }).pipe(Effect.timeout("2 seconds"))

describe("isJsonMediaType", () => {
  it("accepts application/json with parameters in any casing, and nothing else", () => {
    for (const t of ["application/json", "application/json; charset=utf-8", " Application/JSON ;charset=UTF-8"])
      expect(isJsonMediaType(t), t).toBe(true)
    for (const t of [undefined, "", "text/json", "application/vnd.api+json", "application/json-seq", "json"])
      expect(isJsonMediaType(t), String(t)).toBe(false)
  })
})

it.live("an estimate as application/vnd.api+json answers 415 in the envelope; as JSON it is priced", () =>
  Effect.gen(function* () {
    const access = yield* Access.Access
    const partner = yield* access.createPartner("Types LLC")
    const key = (yield* access.issueKey(partner.id, {})).raw
    const body = '{"modelId":"gpt-image-1","prompt":"p"}'
    for (const type of ["application/vnd.api+json", "application/merge-patch+json", "text/json", "application/xml"]) {
      const r = yield* send(key, "POST", "/v1/billing/pricing/estimate", type, body)
      expect(r, type).toEqual({
        status: 415,
        connection: "close",
        json: {
          statusCode: 415,
          code: "UNSUPPORTED_MEDIA_TYPE",
          message: "request bodies are JSON (Content-Type: application/json)"
        }
      })
    }
    const priced = yield* send(key, "POST", "/v1/billing/pricing/estimate", "application/json; charset=utf-8", body)
    expect(priced.status).toBe(200)
    const balance = yield* send(key, "GET", "/v1/billing/balance", "application/xml", "")
    expect(balance.status).toBe(200)
  }).pipe(Effect.provide(Server))
)

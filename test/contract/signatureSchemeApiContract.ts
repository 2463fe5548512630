/**
 * The endpoint field `signatureScheme` over HTTP, on every store (memory, PGlite, PostgreSQL):
 * set on create and PATCH, shown by the list and by `GET /v1/webhooks/endpoints/{id}` (never with
 * the secret), 404 for an unknown, foreign or malformed id, 400 for a scheme that does not exist,
 * and 409 for switching an endpoint whose secret predates the scheme, until a rotation.
 */
import { randomUUID } from "node:crypto"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Access, Ids, Webhooks } from "@frank/core"
import type { EngineStores } from "@frank/core/testing"
import { Effect, type Layer, Schema } from "effect"
import { partnerApiServer } from "../support/partnerApiServer.js"
import { EndpointStore } from "@frank/core/stores"

const NEW_SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/

/** A partner with a full API key, and a request function that sends it. */
const partnerClient = Effect.gen(function* () {
  const access = yield* Access.Access
  const partner = yield* access.createPartner(`Schemes ${randomUUID().slice(0, 8)}`)
  const key = yield* access.issueKey(partner.id, {})
  const client = yield* HttpClient.HttpClient
  const request = (method: "GET" | "POST" | "PATCH", path: string, body?: unknown) =>
    Effect.gen(function* () {
      let req = HttpClientRequest.make(method)(path).pipe(HttpClientRequest.setHeader("x-api-key", key.raw))
      if (body !== undefined) req = yield* HttpClientRequest.bodyJson(req, body)
      const res = yield* client.execute(req)
      const text = yield* res.text
      // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers
      return { status: res.status, text, json: (text === "" ? undefined : JSON.parse(text)) as any }
    }).pipe(Effect.orDie)
  return { partnerId: partner.id, request }
})

const newUrl = () => `https://hooks-${randomUUID().slice(0, 8)}.example.com/in`

export const signatureSchemeApiContract = (engine: string, stores: Layer.Layer<EngineStores, unknown>) => {
  layer(partnerApiServer(stores), { timeout: 120_000, excludeTestServices: true })(
    `signatureScheme over HTTP on ${engine}`,
    (it) => {
      it.effect("create, list and GET one show the scheme (frank by default) and never the secret", () =>
        Effect.gen(function* () {
          const { request } = yield* partnerClient
          const plain = yield* request("POST", "/v1/webhooks/endpoints", { url: newUrl() })
          expect(plain.status, plain.text).toBe(201)
          expect(plain.json.signatureScheme).toBe("frank")
          expect(plain.json.secret).toMatch(NEW_SECRET)
          const standard = yield* request("POST", "/v1/webhooks/endpoints", {
            url: newUrl(),
            signatureScheme: "standard-webhooks"
          })
          expect(standard.status, standard.text).toBe(201)
          expect(standard.json.signatureScheme).toBe("standard-webhooks")

          const one = yield* request("GET", `/v1/webhooks/endpoints/${standard.json.id}`)
          expect(one.status, one.text).toBe(200)
          const { secret: _secret, ...view } = standard.json
          expect(one.json).toEqual(view)
          expect(one.text).not.toContain(standard.json.secret)
          // An id in upper case names the same endpoint.
          expect((yield* request("GET", `/v1/webhooks/endpoints/${standard.json.id.toUpperCase()}`)).json.id).toBe(
            standard.json.id
          )

          const list = yield* request("GET", "/v1/webhooks/endpoints")
          expect(list.json.items.map((e: { signatureScheme: string }) => e.signatureScheme).sort()).toEqual([
            "frank",
            "standard-webhooks"
          ])
          expect(list.text).not.toContain(plain.json.secret)
        })
      )

      it.effect(
        "PATCH sets the scheme, other changes keep it, and an unknown scheme is a 400 that changes nothing",
        () =>
          Effect.gen(function* () {
            const { request } = yield* partnerClient
            const created = yield* request("POST", "/v1/webhooks/endpoints", { url: newUrl() })
            const path = `/v1/webhooks/endpoints/${created.json.id}`
            const both = yield* request("PATCH", path, { signatureScheme: "both" })
            expect(both.status, both.text).toBe(200)
            expect(both.json.signatureScheme).toBe("both")
            const paused = yield* request("PATCH", path, { active: false })
            expect(paused.json).toMatchObject({ active: false, signatureScheme: "both" })
            for (const bad of ["svix", "", null, 1]) {
              const refused = yield* request("PATCH", path, { signatureScheme: bad, active: true })
              expect(refused.status, refused.text).toBe(400)
              expect(refused.json.code).toBe("VALIDATION_FAILED")
            }
            const refusedCreate = yield* request("POST", "/v1/webhooks/endpoints", {
              url: newUrl(),
              signatureScheme: "Standard-Webhooks"
            })
            expect([refusedCreate.status, refusedCreate.json.code]).toEqual([400, "VALIDATION_FAILED"])
            expect((yield* request("GET", path)).json).toMatchObject({ active: false, signatureScheme: "both" })
            const back = yield* request("PATCH", path, { signatureScheme: "frank", active: true })
            expect(back.json).toMatchObject({ active: true, signatureScheme: "frank" })
          })
      )

      it.effect("GET and PATCH of an unknown, another partner's or a malformed id answer 404", () =>
        Effect.gen(function* () {
          const owner = yield* partnerClient
          const other = yield* partnerClient
          const created = yield* owner.request("POST", "/v1/webhooks/endpoints", { url: newUrl() })
          for (const [who, id] of [
            [owner, randomUUID()],
            [other, created.json.id],
            [owner, "not-an-id"],
            [owner, `${created.json.id}x`]
          ] as const) {
            const path = `/v1/webhooks/endpoints/${id}`
            for (const res of [
              yield* who.request("GET", path),
              yield* who.request("PATCH", path, { signatureScheme: "both" })
            ]) {
              expect(res.status, `${id}: ${res.text}`).toBe(404)
              expect(res.json).toMatchObject({ statusCode: 404, code: "WEBHOOK_ENDPOINT_NOT_FOUND" })
            }
          }
          // The owner's endpoint is untouched by the foreign PATCH.
          expect((yield* owner.request("GET", `/v1/webhooks/endpoints/${created.json.id}`)).json.signatureScheme).toBe(
            "frank"
          )
        })
      )

      it.effect("an endpoint with a base64url secret from before switches only after a rotation (409 until then)", () =>
        Effect.gen(function* () {
          const { partnerId, request } = yield* partnerClient
          const id = Schema.decodeSync(Ids.EndpointId)(randomUUID())
          const legacy = `whsec_${Buffer.alloc(32, 0xfb).toString("base64url")}`
          // As an endpoint registered before migration 0017 reads: base64url secret, scheme frank.
          const store = yield* EndpointStore
          const now = Date.now()
          yield* store.insertEndpoint(
            {
              partnerId,
              id,
              url: newUrl(),
              eventTypes: null,
              active: true,
              secret: legacy,
              previousSecret: null,
              previousSecretValidUntil: null,
              signatureScheme: "frank",
              rateLimitPerSecond: null,
              health: Webhooks.newEndpointHealth,
              createdAt: now,
              updatedAt: now
            },
            10
          )
          const path = `/v1/webhooks/endpoints/${id}`
          for (const scheme of ["standard-webhooks", "both"]) {
            const refused = yield* request("PATCH", path, { signatureScheme: scheme, active: false })
            expect(refused.status, refused.text).toBe(409)
            expect(refused.json).toMatchObject({ statusCode: 409, code: "WEBHOOK_SECRET_ROTATION_REQUIRED" })
            expect(refused.json.message).toContain("rotate")
          }
          // Refused whole: neither the scheme nor the other field changed.
          expect((yield* request("GET", path)).json).toMatchObject({ active: true, signatureScheme: "frank" })
          expect((yield* request("PATCH", path, { signatureScheme: "frank" })).status).toBe(200)
          const rotated = yield* request("POST", `${path}/rotate-secret`)
          expect(rotated.json.secret).toMatch(NEW_SECRET)
          const switched = yield* request("PATCH", path, { signatureScheme: "both" })
          expect(switched.status, switched.text).toBe(200)
          expect(switched.json.signatureScheme).toBe("both")
          expect((yield* store.getEndpoint(partnerId, id))?.previousSecret).toBe(legacy)
        })
      )
    }
  )
}

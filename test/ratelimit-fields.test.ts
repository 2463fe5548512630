/**
 * The RateLimit header fields (draft-ietf-httpapi-ratelimit-headers) on the partner API, parsed
 * with a Structured Fields parser (structured-headers, RFC 9651): one policy item per limit that
 * applies (key, session, ip), `RateLimit` naming the one closest to its limit, both on a 429 with
 * Retry-After, exposed to browser scripts, and documented in the OpenAPI document.
 */
import { HttpClient, HttpClientRequest, OpenApi } from "@effect/platform"
import { Access } from "@frank/core"
import { PartnerApi } from "@frank/core/http"
import { MemoryLedgerStore, MemoryWebhookStore } from "@frank/core/testing"
import { expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { parseList } from "structured-headers"
import { partnerApiServer } from "./support/partnerApiServer.js"

const Server = partnerApiServer(Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore.layer))

const get = (path: string, headers: Record<string, string>) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const res = yield* client.execute(HttpClientRequest.get(path).pipe(HttpClientRequest.setHeaders(headers)))
    yield* res.text
    return { status: res.status, headers: res.headers }
  })

/** Each list member's name and parameters, as the parser reads them. */
const members = (field: string | undefined) => {
  expect(field).toBeDefined()
  return parseList(field!).map(([name, params]) => ({ name, ...Object.fromEntries(params) }) as Record<string, unknown>)
}

it.live("a key's answer lists the key and IP policies and reports the tighter; a 429 carries both fields", () =>
  Effect.gen(function* () {
    const access = yield* Access.Access
    const partner = yield* access.createPartner("Fields LLC")
    const key = (yield* access.issueKey(partner.id, {})).raw
    const first = yield* get("/v1/billing/balance", { "x-api-key": key })
    expect(first.status).toBe(200)
    expect(members(first.headers["ratelimit-policy"])).toEqual([
      { name: "ip", q: 100, w: 60 },
      { name: "key", q: 60, w: 60 }
    ])
    const [reported, ...more] = members(first.headers.ratelimit)
    expect(more).toEqual([])
    expect(reported).toMatchObject({ name: "key", r: 59 })
    expect(reported?.t as number).toBeGreaterThanOrEqual(1)
    expect(reported?.t as number).toBeLessThanOrEqual(60)
    const exposed = (first.headers["access-control-expose-headers"] ?? "").split(/,\s*/)
    expect(exposed).toEqual(expect.arrayContaining(["RateLimit", "RateLimit-Policy", "Retry-After"]))
    for (let i = 0; i < 59; i++) yield* get("/v1/billing/balance", { "x-api-key": key })
    const refused = yield* get("/v1/billing/balance", { "x-api-key": key })
    expect(refused.status).toBe(429)
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1)
    expect(members(refused.headers["ratelimit-policy"]).map((m) => m.name)).toEqual(["ip", "key"])
    expect(members(refused.headers.ratelimit)).toEqual([
      { name: "key", r: 0, t: Number(refused.headers["retry-after"]) }
    ])
  }).pipe(Effect.provide(Server))
)

it.live("a session's answer lists the IP and session policies", () =>
  Effect.gen(function* () {
    const access = yield* Access.Access
    const partner = yield* access.createPartner("Session Fields LLC")
    const session = yield* access.createSession(partner.id)
    const res = yield* get("/auth/api-keys/operations", { cookie: `service_token=${session.token}` })
    expect(res.status).toBe(200)
    expect(members(res.headers["ratelimit-policy"])).toEqual([
      { name: "ip", q: 100, w: 60 },
      { name: "session", q: 60, w: 60 }
    ])
    expect(members(res.headers.ratelimit)[0]).toMatchObject({ name: "session", r: 59 })
  }).pipe(Effect.provide(Server))
)

it("the OpenAPI document declares the fields on every answer of every rate-limited operation", () => {
  const spec = OpenApi.fromApi(PartnerApi) as unknown as {
    paths: Record<
      string,
      Record<
        string,
        { security?: ReadonlyArray<unknown>; responses: Record<string, { headers?: Record<string, unknown> }> }
      >
    >
    components: { headers: Record<string, unknown> }
  }
  expect(Object.keys(spec.components.headers)).toEqual(
    expect.arrayContaining(["RateLimit", "RateLimit-Policy", "Retry-After"])
  )
  let operations = 0
  for (const item of Object.values(spec.paths))
    for (const op of Object.values(item)) {
      // Only operations behind a key or a session are counted (and limited).
      if ((op.security ?? []).length === 0) continue
      operations++
      for (const [status, response] of Object.entries(op.responses)) {
        expect(Object.keys(response.headers ?? {})).toEqual(expect.arrayContaining(["RateLimit", "RateLimit-Policy"]))
        if (status === "429") expect(response.headers).toHaveProperty("Retry-After")
      }
    }
  expect(operations).toBeGreaterThan(30)
})

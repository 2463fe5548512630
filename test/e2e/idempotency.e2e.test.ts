/**
 * Idempotency-Key on every change, against the spawned host (PGlite, or PostgreSQL with
 * DATABASE_URL): a retry gets the stored first answer and runs nothing, another request under the
 * same key is refused, keys are per partner (admin API: per admin token), answers are kept only
 * when the operation ran, and the spec's own keyed routes keep their rules.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { adminCredit, adminHeaders, freshIp, newPartner, type Partner } from "./hostClient.js"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"

let host: RunningHost
let a: Partner
let b: Partner
beforeAll(async () => {
  const database = process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}
  host = await spawnHost({ FRANK_ALLOW_PRIVATE_NETWORK: "true", FRANK_TRUST_PROXY: "true", ...database })
  a = await newPartner(host, "Idem A")
  b = await newPartner(host, "Idem B")
}, 120_000)
afterAll(async () => {
  await host?.stop()
})

const uniqueKey = (label: string) => `${label}-${Math.random().toString(36).slice(2)}`

const endpointCount = async (p: Partner) =>
  (await call(host, "GET", "/v1/webhooks/endpoints", { headers: p.key })).json.items.length as number

const balance = async (p: Partner) =>
  (await call(host, "GET", "/v1/billing/balance", { headers: p.key })).json.total as number

describe("Idempotency-Key on the partner API", () => {
  it("replays the first answer of a retry and runs nothing again", async () => {
    const key = uniqueKey("create")
    const before = await endpointCount(a)
    const headers = { ...a.key, "idempotency-key": key }
    const first = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers,
      body: { url: "http://127.0.0.1:9/one", eventTypes: ["billing.topup.confirmed"] }
    })
    expect(first.status, first.text).toBe(201)
    expect(first.headers.get("idempotent-replayed")).toBeNull()
    // The same object with its keys in another order is the same body.
    const retry = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers,
      rawBody: JSON.stringify({ eventTypes: ["billing.topup.confirmed"], url: "http://127.0.0.1:9/one" })
    })
    expect(retry.status).toBe(201)
    expect(retry.headers.get("idempotent-replayed")).toBe("true")
    expect(retry.text).toBe(first.text)
    expect(await endpointCount(a)).toBe(before + 1)
  })

  it("refuses the same key with another body, path or method: 422 IDEMPOTENCY_KEY_REUSED", async () => {
    const key = uniqueKey("reuse")
    const headers = { ...a.key, "idempotency-key": key }
    const first = await call(host, "POST", "/v1/webhooks/endpoints", { headers, body: { url: "http://127.0.0.1:9/a" } })
    expect(first.status, first.text).toBe(201)
    const before = await endpointCount(a)
    const otherBody = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers,
      body: { url: "http://127.0.0.1:9/b" }
    })
    expect(otherBody.status).toBe(422)
    expect(otherBody.json).toEqual({
      statusCode: 422,
      code: "IDEMPOTENCY_KEY_REUSED",
      message: expect.stringContaining(key)
    })
    const otherPath = await call(host, "DELETE", `/v1/webhooks/endpoints/${first.json.id}`, { headers })
    expect(otherPath.status).toBe(422)
    expect(await endpointCount(a)).toBe(before)
  })

  it("scopes keys to the partner: another partner's same key runs for that partner", async () => {
    const key = uniqueKey("shared")
    const body = { url: "http://127.0.0.1:9/shared" }
    const forA = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers: { ...a.key, "idempotency-key": key },
      body
    })
    const forB = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers: { ...b.key, "idempotency-key": key },
      body
    })
    expect(forA.status).toBe(201)
    expect(forB.status).toBe(201)
    expect(forB.headers.get("idempotent-replayed")).toBeNull()
    expect(forB.json.id).not.toBe(forA.json.id)
    // The partner's other key shares the partner's keys.
    const viaMonitorIp = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers: { ...b.key, "x-forwarded-for": freshIp(), "idempotency-key": key },
      body
    })
    expect(viaMonitorIp.headers.get("idempotent-replayed")).toBe("true")
  })

  it("refuses a malformed key with 400 IDEMPOTENCY_KEY_INVALID and runs nothing", async () => {
    const before = await endpointCount(a)
    for (const bad of ["x".repeat(129), "clé-non-ascii", "tab\there"]) {
      const r = await call(host, "POST", "/v1/webhooks/endpoints", {
        headers: { ...a.key, "idempotency-key": bad },
        body: { url: "http://127.0.0.1:9/bad" }
      }).catch((e: unknown) => ({ status: -1, json: { code: String(e) } }))
      // fetch itself refuses a header value outside Latin-1; the host refuses the rest.
      if (r.status === -1) continue
      expect(r.status).toBe(400)
      expect(r.json.code).toBe("IDEMPOTENCY_KEY_INVALID")
    }
    expect(await endpointCount(a)).toBe(before)
  })

  it("keeps no answer for input validation, so the fixed request runs under the same key", async () => {
    const key = uniqueKey("fix")
    const headers = { ...a.key, "idempotency-key": key }
    const invalid = await call(host, "POST", "/v1/webhooks/endpoints", { headers, body: { url: 42 } })
    expect(invalid.status).toBe(400)
    expect(invalid.json.code).toBe("VALIDATION_FAILED")
    const fixed = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers,
      body: { url: "http://127.0.0.1:9/fixed" }
    })
    expect(fixed.status, fixed.text).toBe(201)
    expect(fixed.headers.get("idempotent-replayed")).toBeNull()
  })

  it("keeps the handler's own 4xx: a retry is answered the same without running", async () => {
    const key = uniqueKey("missing")
    const headers = { ...a.key, "idempotency-key": key }
    const path = "/v1/webhooks/endpoints/00000000-0000-4000-8000-000000000000"
    const first = await call(host, "DELETE", path, { headers })
    expect(first.status).toBe(404)
    const retry = await call(host, "DELETE", path, { headers })
    expect(retry.status).toBe(404)
    expect(retry.headers.get("idempotent-replayed")).toBe("true")
    expect(retry.text).toBe(first.text)
  })

  it("keeps no answer for 401: the same key works once the credential is right", async () => {
    const key = uniqueKey("auth")
    const body = { url: "http://127.0.0.1:9/auth" }
    const refused = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers: { "x-api-key": "svc_live_wrong", "idempotency-key": key },
      body
    })
    expect(refused.status).toBe(401)
    const ran = await call(host, "POST", "/v1/webhooks/endpoints", {
      headers: { ...a.key, "idempotency-key": key },
      body
    })
    expect(ran.status).toBe(201)
    expect(ran.headers.get("idempotent-replayed")).toBeNull()
  })

  it("covers the session-authenticated key routes: a retried issue answers the same key once", async () => {
    const key = uniqueKey("issue")
    const headers = { ...a.cookie, "idempotency-key": key }
    const list = async () => (await call(host, "GET", "/v1/billing/api-keys", { headers: a.key })).json.items.length
    const before = await list()
    const first = await call(host, "POST", "/v1/billing/api-keys", { headers, body: { label: "retried" } })
    const retry = await call(host, "POST", "/v1/billing/api-keys", { headers, body: { label: "retried" } })
    expect(first.status).toBe(201)
    expect(retry.headers.get("idempotent-replayed")).toBe("true")
    expect(retry.json.id).toBe(first.json.id)
    expect(await list()).toBe(before + 1)
  })

  it("leaves the spec's keyed routes to their own rules (payment links: 409 for another amount)", async () => {
    const key = uniqueKey("link")
    const headers = { ...a.key, "idempotency-key": key }
    const first = await call(host, "POST", "/v1/billing/payment/link", { headers, body: { amountRub: 500 } })
    expect(first.status, first.text).toBe(201)
    const other = await call(host, "POST", "/v1/billing/payment/link", { headers, body: { amountRub: 600 } })
    expect(other.status).toBe(409)
    expect(other.json.code).toBe("PAYMENT_IDEMPOTENCY_CONFLICT")
  })

  it("documents the header and its errors on every change in the OpenAPI document", async () => {
    const doc = (await call(host, "GET", "/openapi.json")).json
    const create = doc.paths["/v1/webhooks/endpoints"].post
    expect(create.parameters.some((p: { name: string }) => p.name === "Idempotency-Key")).toBe(true)
    expect(create.responses["422"]).toBeDefined()
    expect(create.responses["201"].headers["Idempotent-Replayed"]).toBeDefined()
    expect(JSON.stringify(create.responses["409"])).toContain("IDEMPOTENCY_REQUEST_IN_PROGRESS")
    expect(doc.paths["/admin/v1/partners/{id}/credits"].post.responses["422"]).toBeDefined()
    expect(doc.paths["/v1/billing/balance"].get.responses["422"]).toBeUndefined()
  })
})

describe("Idempotency-Key on the admin API", () => {
  it("credits once per key, scoped to the admin token", async () => {
    const key = uniqueKey("credit")
    const headers = { ...adminHeaders(host), "idempotency-key": key }
    const before = await balance(a)
    const path = `/admin/v1/partners/${a.id}/credits`
    const first = await call(host, "POST", path, { headers, body: { amountFranks: 70, kind: "bonus" } })
    const retry = await call(host, "POST", path, { headers, body: { amountFranks: 70, kind: "bonus" } })
    expect(first.status, first.text).toBe(201)
    expect(retry.status).toBe(201)
    expect(retry.headers.get("idempotent-replayed")).toBe("true")
    expect(retry.text).toBe(first.text)
    expect(await balance(a)).toBe(before + 70)
    // Without a key every request runs, as before.
    await adminCredit(host, a.id, 5, "bonus")
    expect(await balance(a)).toBe(before + 75)
  })
})

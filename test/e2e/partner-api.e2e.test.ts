/**
 * End-to-end: the real host process on embedded PGlite, spoken to over HTTP exactly as a
 * partner's integration and an operator's scripts do.
 */
import { FetchHttpClient } from "@effect/platform"
import { makePartnerClient } from "@frank/core/http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"

let host: RunningHost
const admin = () => ({ authorization: `Bearer ${host.adminToken}` })

const newPartner = async (name: string, creditFranks = 0) => {
  const p = await call(host, "POST", "/admin/v1/partners", { headers: admin(), body: { name } })
  expect(p.status).toBe(201)
  const s = await call(host, "POST", `/admin/v1/partners/${p.json.id}/sessions`, { headers: admin(), body: {} })
  expect(s.status).toBe(201)
  if (creditFranks > 0) {
    const c = await call(host, "POST", `/admin/v1/partners/${p.json.id}/credits`, {
      headers: admin(),
      body: { amountFranks: creditFranks, kind: "adjustment" }
    })
    expect(c.status).toBe(201)
  }
  return { id: p.json.id as string, cookie: { cookie: `service_token=${s.json.token}` } }
}

const issueKey = async (cookie: Record<string, string>, body: object = {}) => {
  const k = await call(host, "POST", "/v1/billing/api-keys", { headers: cookie, body })
  expect(k.status, k.text).toBe(201)
  return { raw: k.json.key as string, id: k.json.id as string, record: k.json }
}

const withKey = (raw: string) => ({ "x-api-key": raw })

beforeAll(async () => {
  host = await spawnHost({ FRANK_SANDBOX_CLOCK: "true" })
}, 120_000)

afterAll(async () => {
  const code = await host?.stop()
  // Graceful shutdown on SIGTERM exits 0, and the log says it drained and stopped (not a crash).
  expect(code).toBe(0)
  const messages = (host?.logs() ?? "")
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => (JSON.parse(l) as { message: string }).message)
  const stopping = messages.findIndex((m) => m.startsWith("stopping:"))
  expect(stopping).toBeGreaterThan(messages.indexOf("Frank host ready"))
  expect(messages.indexOf("Frank host ready")).toBeGreaterThan(-1)
  expect(messages.slice(stopping + 1)).toContain("Frank host stopped")
}, 60_000)

describe("host operations", () => {
  it("healthz, readyz, metrics, openapi and docs", async () => {
    expect((await call(host, "GET", "/healthz")).status).toBe(200)
    expect((await call(host, "GET", "/readyz")).json).toEqual({ status: "ready" })
    const metrics = await call(host, "GET", "/metrics")
    expect(metrics.status).toBe(200)
    expect(metrics.text).toContain("frank_http_requests_total")
    const openapi = await call(host, "GET", "/openapi.json")
    expect(openapi.json.paths["/v1/billing/balance"]).toBeDefined()
    expect(openapi.json.paths["/v1/billing/api-keys"]).toBeDefined()
    const docs = await call(host, "GET", "/docs")
    expect(docs.status).toBe(200)
    expect(docs.text).toContain("<html")
  })

  it("unknown routes and malformed JSON answer in the envelope", async () => {
    const missing = await call(host, "GET", "/v1/nope")
    expect(missing.status).toBe(404)
    expect(missing.json).toMatchObject({ statusCode: 404, code: "ROUTE_NOT_FOUND" })
    const { cookie } = await newPartner("Malformed LLC")
    const bad = await call(host, "POST", "/v1/billing/api-keys", { headers: cookie, rawBody: "{not json" })
    expect(bad.status).toBe(400)
    expect(bad.json).toMatchObject({ statusCode: 400, code: "VALIDATION_FAILED" })
    expect(Array.isArray(bad.json.message)).toBe(true)
    expect(bad.headers.get("x-request-id")).toBeTruthy()
  })

  it("the admin API refuses requests without the admin token", async () => {
    const r = await call(host, "POST", "/admin/v1/partners", { body: { name: "x" } })
    expect(r.status).toBe(401)
    const wrong = await call(host, "POST", "/admin/v1/partners", {
      headers: { authorization: "Bearer wrong" },
      body: { name: "x" }
    })
    expect(wrong.status).toBe(401)
  })

  it("admin credits, tariff and legacy keys", async () => {
    const p = await newPartner("Admin Ops LLC")
    const credit = await call(host, "POST", `/admin/v1/partners/${p.id}/credits`, {
      headers: admin(),
      body: { amountFranks: 10.25, kind: "bonus", description: "welcome" }
    })
    expect(credit.status).toBe(201)
    expect(typeof credit.json.transactionId).toBe("string")
    const badCredit = await call(host, "POST", `/admin/v1/partners/${p.id}/credits`, {
      headers: admin(),
      body: { amountFranks: 1.234, kind: "gift" }
    })
    expect(badCredit.status).toBe(400)
    expect(badCredit.json.message).toHaveLength(2)
    const unknown = await call(host, "POST", "/admin/v1/partners/00000000-0000-4000-8000-000000000000/sessions", {
      headers: admin(),
      body: {}
    })
    expect(unknown.status).toBe(404)
    const tariff = await call(host, "PUT", `/admin/v1/partners/${p.id}/tariff`, {
      headers: admin(),
      body: { assignedPlan: "max" }
    })
    expect(tariff.status).toBe(200)
    const key = await issueKey(p.cookie)
    const t = await call(host, "GET", "/v1/billing/tariff", { headers: withKey(key.raw) })
    expect(t.status).toBe(200)
    expect(t.json).toMatchObject({ plan: "max", assignedPlan: "max", earnedPlan: "base", discountPercent: 10 })
    const legacy = await call(host, "POST", `/admin/v1/partners/${p.id}/legacy-keys`, { headers: admin() })
    expect(legacy.status).toBe(201)
    expect(legacy.json.key).toMatch(/^svc_[0-9a-f]{32}$/)
    const refused = await call(host, "GET", "/v1/billing/balance", { headers: withKey(legacy.json.key) })
    expect(refused.status).toBe(403)
    expect(refused.json.code).toBe("LEGACY_KEY_FORBIDDEN")
  })
})

describe("API keys", () => {
  it("issues a full key once, from a session only, and authenticates by header or bearer", async () => {
    const p = await newPartner("Keys LLC", 2500)
    const key = await issueKey(p.cookie, { label: "ci" })
    expect(key.raw).toMatch(/^svc_live_[0-9a-f]{64}$/)
    expect(key.record).toMatchObject({ label: "ci", access: "full", active: true, prefix: key.raw.slice(0, 16) })
    const viaHeader = await call(host, "GET", "/v1/billing/balance", { headers: withKey(key.raw) })
    expect(viaHeader.json).toMatchObject({
      total: 2500,
      available: 2500,
      isLow: false,
      lowBalanceThresholdFranks: 1000
    })
    const viaBearer = await call(host, "GET", "/v1/billing/balance", {
      headers: { authorization: `Bearer ${key.raw}` }
    })
    expect(viaBearer.status).toBe(200)
    // The raw key is never shown again.
    const list = await call(host, "GET", "/v1/billing/api-keys", { headers: withKey(key.raw) })
    expect(list.text).not.toContain(key.raw)
    // An API key cannot issue keys; no session is 401.
    const byKey = await call(host, "POST", "/v1/billing/api-keys", { headers: withKey(key.raw), body: {} })
    expect(byKey.status).toBe(403)
    const noSession = await call(host, "POST", "/v1/billing/api-keys", { body: {} })
    expect(noSession.status).toBe(401)
    const badSession = await call(host, "POST", "/v1/billing/api-keys", {
      headers: { cookie: "service_token=nope" },
      body: {}
    })
    expect(badSession.status).toBe(401)
  })

  it("answers every key error code", async () => {
    const p = await newPartner("Codes LLC")
    const err = async (body: object) =>
      (await call(host, "POST", "/v1/billing/api-keys", { headers: p.cookie, body })).json
    expect((await err({ expiresInDays: 0 })).code).toBe("API_KEY_EXPIRY_OUT_OF_RANGE")
    expect((await err({ expiresInDays: 366 })).code).toBe("API_KEY_EXPIRY_OUT_OF_RANGE")
    expect((await err({ scopes: [] })).code).toBe("API_KEY_SCOPE_EMPTY")
    expect((await err({ scopes: ["*"] })).code).toBe("API_KEY_SCOPE_UNKNOWN")
    expect((await err({ scopes: ["billing:read", "billing:write"] })).code).toBe("API_KEY_SCOPE_UNKNOWN")
    const long = await call(host, "POST", "/v1/billing/api-keys", {
      headers: p.cookie,
      body: { label: "x".repeat(121) }
    })
    expect(long.status).toBe(400)
    // Numeric strings are coerced.
    const coerced = await issueKey(p.cookie, { expiresInDays: "30" })
    expect(coerced.record.expiresAt).not.toBeNull()

    const restricted = await issueKey(p.cookie, { scopes: ["billing:read"] })
    const widen = await call(host, "PATCH", `/v1/billing/api-keys/${restricted.id}`, {
      headers: p.cookie,
      body: { scopes: ["billing:read", "pricing:read"] }
    })
    expect(widen.json.code).toBe("API_KEY_SCOPE_DOWNGRADE_FORBIDDEN")
    const toFull = await call(host, "PATCH", `/v1/billing/api-keys/${restricted.id}`, {
      headers: p.cookie,
      body: { scopes: null }
    })
    expect(toFull.json.code).toBe("API_KEY_SCOPE_DOWNGRADE_FORBIDDEN")
    const expiry = await call(host, "PATCH", `/v1/billing/api-keys/${restricted.id}`, {
      headers: p.cookie,
      body: { expiresInDays: 10 }
    })
    expect(expiry.json.code).toBe("API_KEY_EXPIRY_IMMUTABLE")
    const relabel = await call(host, "PATCH", `/v1/billing/api-keys/${restricted.id}`, {
      headers: p.cookie,
      body: { label: "renamed" }
    })
    expect(relabel.status).toBe(200)
    expect(relabel.json).toMatchObject({ label: "renamed", scopes: ["billing:read"] })

    const noScope = await call(host, "GET", "/v1/billing/pricing/catalog", { headers: withKey(restricted.raw) })
    expect(noScope.status).toBe(403)
    expect(noScope.json.code).toBe("API_KEY_SCOPE_REQUIRED")
    // HEAD is served by the GET route: it needs the same scope, or its Content-Length would leak the list's size.
    for (const path of [
      "/v1/billing/pricing/catalog",
      "/v1/webhooks/endpoints",
      "/v1/webhooks/deliveries?status=pending"
    ]) {
      const head = await call(host, "HEAD", path, { headers: withKey(restricted.raw) })
      expect(head.status, path).toBe(403)
    }
    expect((await call(host, "HEAD", "/v1/billing/balance", { headers: withKey(restricted.raw) })).status).toBe(200)

    // Quota: 20 active keys (2 issued above).
    for (let i = 0; i < 18; i++) await issueKey(p.cookie)
    const over = await call(host, "POST", "/v1/billing/api-keys", { headers: p.cookie, body: {} })
    expect(over.status).toBe(400)
    expect(over.json.code).toBe("API_KEY_QUOTA_EXCEEDED")
  })

  it("a restricted caller sees its own scopes and null for its neighbours", async () => {
    const p = await newPartner("Listing LLC")
    const full = await issueKey(p.cookie, { label: "full" })
    const narrow = await issueKey(p.cookie, { label: "narrow", scopes: ["billing:read", "usage:read"] })
    const asNarrow = await call(host, "GET", "/v1/billing/api-keys", { headers: withKey(narrow.raw) })
    expect(asNarrow.status).toBe(200)
    const byId = new Map(asNarrow.json.items.map((k: { id: string }) => [k.id, k]))
    expect(byId.get(narrow.id)).toMatchObject({ scopes: ["billing:read", "usage:read"], access: "restricted" })
    expect(byId.get(full.id)).toMatchObject({ scopes: null })
    const asFull = await call(host, "GET", "/v1/billing/api-keys", { headers: withKey(full.raw) })
    const byIdFull = new Map(asFull.json.items.map((k: { id: string }) => [k.id, k]))
    expect((byIdFull.get(full.id) as { scopes: string[] }).scopes.length).toBe(7)
    const reference = await call(host, "GET", "/auth/api-keys/operations", { headers: p.cookie })
    expect(reference.status).toBe(200)
    const billing = reference.json.scopes.find((s: { scope: string }) => s.scope === "billing:read")
    expect(billing.operations).toContainEqual({ method: "GET", path: "/v1/billing/balance" })
    expect(reference.json.sessionOnly).toContainEqual({ method: "POST", path: "/v1/billing/api-keys" })
    expect((await call(host, "GET", "/auth/api-keys/operations", { headers: withKey(full.raw) })).status).toBe(403)
    const check = await call(host, "GET", "/v1/auth/check", { headers: withKey(narrow.raw) })
    expect(check.json).toMatchObject({ ok: true, partnerId: p.id, keyId: narrow.id, access: "restricted" })
  })

  it("revocation applies on the very next request; revoke is idempotent and records the reason", async () => {
    const p = await newPartner("Revoke LLC")
    const keeper = await issueKey(p.cookie)
    const doomed = await issueKey(p.cookie)
    expect((await call(host, "GET", "/v1/billing/balance", { headers: withKey(doomed.raw) })).status).toBe(200)
    const r = await call(host, "DELETE", `/auth/api-keys/${doomed.id}?reason=leaked%20in%20CI`, { headers: p.cookie })
    expect(r.status).toBe(200)
    const after = await call(host, "GET", "/v1/billing/balance", { headers: withKey(doomed.raw) })
    expect(after.status).toBe(401)
    expect((await call(host, "DELETE", `/v1/billing/api-keys/${doomed.id}`, { headers: p.cookie })).status).toBe(200)
    expect((await call(host, "DELETE", "/v1/billing/api-keys/does-not-exist", { headers: p.cookie })).status).toBe(200)
    const list = await call(host, "GET", "/v1/billing/api-keys", { headers: withKey(keeper.raw) })
    const revoked = list.json.items.find((k: { id: string }) => k.id === doomed.id)
    expect(revoked).toMatchObject({ active: false, revokeReason: "leaked in CI" })
    expect(revoked.revokedAt).not.toBeNull()
  })

  it("an expired key answers 401 API_KEY_EXPIRED and stays listed", async () => {
    const p = await newPartner("Expiry LLC")
    const keeper = await issueKey(p.cookie)
    const shortLived = await issueKey(p.cookie, { expiresInDays: 1 })
    expect((await call(host, "GET", "/v1/billing/balance", { headers: withKey(shortLived.raw) })).status).toBe(200)
    // The sandbox clock moves the host's Effect Clock forward; nothing else changes.
    const adv = await call(host, "POST", "/admin/v1/sandbox/clock/advance", {
      headers: admin(),
      body: { seconds: 86_401 }
    })
    expect(adv.status).toBe(200)
    const expired = await call(host, "GET", "/v1/billing/balance", { headers: withKey(shortLived.raw) })
    expect(expired.status).toBe(401)
    expect(expired.json.code).toBe("API_KEY_EXPIRED")
    const list = await call(host, "GET", "/v1/billing/api-keys", { headers: withKey(keeper.raw) })
    expect(list.json.items.find((k: { id: string }) => k.id === shortLived.id)).toMatchObject({ active: false })
  })
})

describe("audit of signing in and out", () => {
  it("a cabinet sign-in and sign-out are recorded as the session, with the request's id and address", async () => {
    const p = await call(host, "POST", "/admin/v1/partners", { headers: admin(), body: { name: "Signing LLC" } })
    const s = await call(host, "POST", `/admin/v1/partners/${p.json.id}/sessions`, { headers: admin(), body: {} })
    const link = new URL(s.json.signInUrl as string)
    const signIn = await fetch(`${host.baseUrl}${link.pathname}${link.search}`, {
      redirect: "manual",
      headers: { "x-request-id": "sign-in-request-1" }
    })
    expect(signIn.status).toBe(303)
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0]!
    const signOut = await fetch(`${host.baseUrl}/cabinet/sign-out`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, origin: host.baseUrl, "x-request-id": "sign-out-request-1" }
    })
    expect(signOut.status).toBe(303)
    const log = await call(host, "GET", `/admin/v1/partners/${p.json.id}/audit-log`, { headers: admin() })
    const byAction = (action: string) => log.json.items.find((r: { action: string }) => r.action === action)
    const signedIn = byAction("session.signed_in")
    expect(signedIn).toMatchObject({ actor: { type: "session" }, requestId: "sign-in-request-1" })
    expect(signedIn.ip).toMatch(/127\.0\.0\.1/)
    expect(byAction("session.ended")).toMatchObject({
      actor: { type: "session", id: signedIn.actor.id },
      target: { type: "session", id: signedIn.actor.id },
      requestId: "sign-out-request-1"
    })
  })
})

describe("billing and ledger", () => {
  it("catalog (no-store), estimate, transactions, CSV export and daily usage", async () => {
    const p = await newPartner("Ledger LLC", 1500)
    const key = await issueKey(p.cookie)
    const h = withKey(key.raw)
    const catalog = await call(host, "GET", "/v1/billing/pricing/catalog", { headers: h })
    expect(catalog.status).toBe(200)
    expect(catalog.headers.get("cache-control")).toContain("no-store")
    expect(catalog.json.refreshAfterSeconds).toBeGreaterThan(0)
    const families = Object.keys(catalog.json.families)
    expect(families.sort()).toEqual(["audio", "image", "processing", "text", "video"])
    const first = catalog.json.families.text[0]
    expect(first.unitOfAccount).toBe("Франки")
    expect(first.currency).toBe("Франки")

    const estimate = await call(host, "POST", "/v1/billing/pricing/estimate", {
      headers: h,
      body: { modelId: first.modelId, prompt: "Hello there" }
    })
    expect(estimate.status, estimate.text).toBe(200)
    expect(estimate.json.totalFranks).toBeGreaterThan(0)
    const unknownModel = await call(host, "POST", "/v1/billing/pricing/estimate", {
      headers: h,
      body: { modelId: "no-such-model" }
    })
    expect(unknownModel.status).toBe(400)
    expect(unknownModel.json.code).toBe("PRICING_MODEL_UNKNOWN")
    const threeWrong = await call(host, "POST", "/v1/billing/pricing/estimate", {
      headers: h,
      body: {
        modelId: first.modelId,
        imageOutputCount: 0,
        referenceVideoCount: 11,
        prompt: "x".repeat(3001),
        extra: true
      }
    })
    expect(threeWrong.status).toBe(400)
    expect(threeWrong.json.code).toBe("VALIDATION_FAILED")
    expect(threeWrong.json.message).toHaveLength(3)
    expect(threeWrong.json.message.join("\n")).toMatch(/imageOutputCount/)
    expect(threeWrong.json.message.join("\n")).toMatch(/referenceVideoCount/)
    expect(threeWrong.json.message.join("\n")).toMatch(/prompt/)

    const txs = await call(host, "GET", "/v1/billing/transactions?type=topup&page=1&limit=5", { headers: h })
    expect(txs.status).toBe(200)
    expect(txs.json).toMatchObject({ page: 1, limit: 5, total: 1 })
    expect(txs.json.items[0]).toMatchObject({
      type: "topup",
      kind: "adjustment",
      amount: 1500,
      label: "Корректировка баланса"
    })
    const badQuery = await call(host, "GET", "/v1/billing/transactions?limit=101&page=0&type=gift", { headers: h })
    expect(badQuery.status).toBe(400)
    expect(badQuery.json.message).toHaveLength(3)

    const csv = await call(host, "GET", "/v1/billing/transactions/export?format=csv", { headers: h })
    expect(csv.status).toBe(200)
    expect(csv.headers.get("content-type")).toContain("text/csv")
    expect(csv.headers.get("content-disposition")).toContain("attachment")
    expect(csv.text.split("\r\n")[0]).toBe(
      "id,occurredAt,type,kind,amountFranks,unitPriceFranks,taskId,attribution,label,description"
    )

    const usage = await call(host, "GET", "/v1/billing/usage/daily?dateFrom=2026-01-01&dateTo=2026-01-03", {
      headers: h
    })
    expect(usage.status).toBe(200)
    expect(usage.json.days.map((d: { date: string }) => d.date)).toEqual(["2026-01-01", "2026-01-02", "2026-01-03"])
  })
})

describe("tenancy", () => {
  it("partner B's key and session see and change nothing of partner A's", async () => {
    const a = await newPartner("Tenant A", 700)
    const b = await newPartner("Tenant B")
    const aKey = await issueKey(a.cookie)
    const bKey = await issueKey(b.cookie)
    const bList = await call(host, "GET", "/v1/billing/api-keys", { headers: withKey(bKey.raw) })
    expect(bList.json.items.map((k: { id: string }) => k.id)).toEqual([bKey.id])
    expect((await call(host, "GET", "/v1/billing/transactions", { headers: withKey(bKey.raw) })).json.total).toBe(0)
    expect((await call(host, "GET", "/v1/billing/balance", { headers: withKey(bKey.raw) })).json.total).toBe(0)
    // B's session revoking A's key matches nothing; A's key keeps working.
    expect((await call(host, "DELETE", `/v1/billing/api-keys/${aKey.id}`, { headers: b.cookie })).status).toBe(200)
    const patch = await call(host, "PATCH", `/v1/billing/api-keys/${aKey.id}`, {
      headers: b.cookie,
      body: { label: "pwned" }
    })
    expect(patch.status).toBe(404)
    const stillA = await call(host, "GET", "/v1/billing/balance", { headers: withKey(aKey.raw) })
    expect(stillA.json.total).toBe(700)
  })
})

describe("rate limits", () => {
  // Start at the beginning of a fresh fixed window (the sandbox clock moves forward only), so
  // all 61 requests fall into one minute whatever the wall clock says.
  const advance = async (seconds: number) =>
    (await call(host, "POST", "/admin/v1/sandbox/clock/advance", { headers: admin(), body: { seconds } })).json
      .now as string
  const startFreshWindow = async () => advance(60 - new Date(await advance(0)).getUTCSeconds())

  it("the 61st billing request of a key within a minute answers 429 with Retry-After", async () => {
    const p = await newPartner("Busy LLC")
    const key = await issueKey(p.cookie)
    await startFreshWindow()
    let last = await call(host, "GET", "/v1/billing/balance", { headers: withKey(key.raw) })
    expect(last.headers.get("ratelimit-limit")).toBeTruthy()
    for (let i = 1; i < 60 && last.status === 200; i++)
      last = await call(host, "GET", "/v1/billing/balance", { headers: withKey(key.raw) })
    expect(last.status).toBe(200)
    const limited = await call(host, "GET", "/v1/billing/balance", { headers: withKey(key.raw) })
    expect(limited.status).toBe(429)
    expect(limited.json).toMatchObject({ statusCode: 429, code: "RATE_LIMITED" })
    const retryAfter = Number(limited.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(limited.headers.get("ratelimit-remaining")).toBe("0")
  })

  const rateLimitedTotal = async (route: string) => {
    const text = (await call(host, "GET", "/metrics")).text
    const found = text.match(new RegExp(`^frank_rate_limited_total\\{limit="api_key",route="${route}"\\} (\\d+)$`, "m"))
    return Number(found?.[1] ?? 0)
  }

  it("a key over its limit: every 429 counted, early ones logged once; revoked, its next request is 401", async () => {
    const p = await newPartner("Flooding LLC")
    const key = await issueKey(p.cookie)
    const before = {
      balance: await rateLimitedTotal("/v1/billing/balance"),
      endpoint: await rateLimitedTotal("/v1/webhooks/endpoints/:id")
    }
    await startFreshWindow()
    for (let i = 0; i < 60; i++)
      expect((await call(host, "GET", "/v1/billing/balance", { headers: withKey(key.raw) })).status).toBe(200)
    // The first refusal goes through the API; the later ones are answered before it (early).
    expect((await call(host, "GET", "/v1/billing/balance", { headers: withKey(key.raw) })).status).toBe(429)
    for (const id of ["a", "b", "c"])
      expect((await call(host, "GET", `/v1/webhooks/endpoints/${id}`, { headers: withKey(key.raw) })).status).toBe(429)
    expect(await rateLimitedTotal("/v1/billing/balance")).toBe(before.balance + 1)
    expect(await rateLimitedTotal("/v1/webhooks/endpoints/:id")).toBe(before.endpoint + 3)

    expect((await call(host, "DELETE", `/v1/billing/api-keys/${key.id}`, { headers: p.cookie })).status).toBe(200)
    const after = await call(host, "GET", "/v1/billing/balance", { headers: withKey(key.raw) })
    expect(after.status).toBe(401)
    expect(after.json).toMatchObject({ code: "API_KEY_INVALID" })

    // One log line for the key's early refusals, with their count (written within the 1 s sweep).
    const lines = () =>
      host
        .logs()
        .split("\n")
        .filter((l) => l.startsWith("{") && l.includes("refused before the API") && l.includes(key.id))
    for (let waited = 0; lines().length === 0 && waited < 5_000; waited += 100)
      await new Promise((r) => setTimeout(r, 100))
    expect(lines()).toHaveLength(1)
    expect(JSON.parse(lines()[0]!)).toMatchObject({ partnerId: p.id, refused: 3 })
  })
})

describe("typed client", () => {
  it("derives calls, successes and typed errors from the same HttpApi", async () => {
    const p = await newPartner("Typed LLC", 321.5)
    const key = await issueKey(p.cookie, { scopes: ["billing:read", "usage:read"] })
    const program = Effect.gen(function* () {
      const client = yield* makePartnerClient(host.baseUrl, { apiKey: key.raw })
      const balance = yield* client.billing.balance()
      const page = yield* client.ledger.transactions({ urlParams: { limit: 5 } })
      const check = yield* client.auth.check()
      // A restricted key without pricing:read: the 403 comes back as the typed Forbidden envelope.
      const refused = yield* Effect.flip(client.billing.catalog())
      const anonymous = yield* makePartnerClient(host.baseUrl, { none: true })
      const unauthorized = yield* Effect.flip(anonymous.billing.balance())
      return { balance, page, check, refused, unauthorized }
    }).pipe(Effect.provide(FetchHttpClient.layer))
    const r = await Effect.runPromise(program)
    expect(r.balance).toMatchObject({ total: 321.5, available: 321.5 })
    expect(r.page.items[0]).toMatchObject({ type: "topup", amount: 321.5 })
    expect(r.check).toMatchObject({ ok: true, access: "restricted", scopes: ["billing:read", "usage:read"] })
    expect(r.refused).toMatchObject({ statusCode: 403, code: "API_KEY_SCOPE_REQUIRED" })
    expect(r.unauthorized).toMatchObject({ statusCode: 401, code: "API_KEY_INVALID" })
  })
})

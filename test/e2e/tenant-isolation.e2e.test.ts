/**
 * Tenant isolation sweep against the real host: partner A owns one of every resource with an id
 * (key, webhook endpoint, delivery, task, invoice, payment); partner B calls every route that takes
 * an id, with each of A's ids. The routes come from the HttpApi's route table, so a new route is
 * swept without editing this test. Every answer must be 404 (or 400 for an id of the wrong shape),
 * or the spec's no-op for revoking a foreign key; no answer may carry A's data, and A's resources
 * are unchanged afterwards.
 */
import { PartnerApi, routeTable } from "@frank/core/http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { adminCredit, newPartner, type Partner, startReceiver, type Receiver } from "./hostClient.js"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"

let host: RunningHost
let receiver: Receiver
beforeAll(async () => {
  // On PostgreSQL when DATABASE_URL is set (CI): the host starts faster than on embedded PGlite.
  const database = process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}
  host = await spawnHost({ FRANK_ALLOW_PRIVATE_NETWORK: "true", FRANK_TRUST_PROXY: "true", ...database })
  receiver = await startReceiver()
}, 120_000)
afterAll(async () => {
  await host?.stop()
  await receiver?.close()
})

/** Spec: revoking a foreign key "matches nothing and gives no error". */
const NO_OP_ON_FOREIGN = new Set(["DELETE /v1/billing/api-keys/:id", "DELETE /auth/api-keys/:id"])

/** A body each route accepts in shape, so the answer is about the id, not the body. */
const bodyFor = (method: string, path: string): unknown => {
  if (method === "PATCH" && path.startsWith("/v1/webhooks")) return { active: false }
  // A recovery window of the last hour (the host runs on the real clock here).
  if (path.endsWith("/recover")) return { since: new Date(Date.now() - 3_600_000).toISOString() }
  if (method === "PATCH") return { label: "taken over" }
  return method === "GET" || method === "DELETE" ? undefined : {}
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response bodies
const ok = async (r: Promise<{ status: number; text: string; json: any }>, status = 200) => {
  const res = await r
  expect(res.status, res.text).toBe(status)
  return res.json
}

/** One resource of every kind with an id, owned by `a`. */
const ownEverything = async (a: Partner, keyId: string) => {
  await adminCredit(host, a.id, 50_000, "bonus")
  const endpoint = await ok(
    call(host, "POST", "/v1/webhooks/endpoints", { headers: a.key, body: { url: receiver.url } }),
    201
  )
  await ok(call(host, "POST", `/v1/webhooks/endpoints/${endpoint.id}/test`, { headers: a.key }))
  const deliveries = await ok(call(host, "GET", "/v1/webhooks/deliveries", { headers: a.key }))
  const task = await ok(
    call(host, "POST", "/v1/tasks", { headers: a.key, body: { modelId: "gpt-5-mini", prompt: "Say hi" } }),
    201
  )
  await ok(
    call(host, "PUT", "/v1/billing/legal-invoices/profile", {
      headers: a.key,
      body: {
        companyName: "ООО «Альфа»",
        inn: "7707083893",
        kpp: "773601001",
        legalAddress: "117997, г. Москва, ул. Вавилова, д. 19",
        email: "buh@alpha.example",
        expectedProfileRevision: 0
      }
    })
  )
  const invoice = await ok(
    call(host, "POST", "/v1/billing/legal-invoices/create", {
      headers: a.key,
      body: { amountRub: 1000, expectedProfileRevision: 1 }
    }),
    201
  )
  const payment = await ok(
    call(host, "POST", "/v1/billing/payment/link", {
      headers: { ...a.key, "idempotency-key": "isolation" },
      body: { amountRub: 100 }
    }),
    201
  )
  return {
    key: keyId,
    endpoint: endpoint.id as string,
    delivery: deliveries.deliveries[0].id as string,
    task: task.data.task_id as string,
    invoice: invoice.id as string,
    payment: (payment.id ?? payment.paymentId) as string
  }
}

describe("tenant isolation", { timeout: 240_000 }, () => {
  it("every route that takes an id answers another partner's id with 404 or the spec's no-op, never data", async () => {
    const a = await newPartner(host, "Alpha LLC")
    const b = await newPartner(host, "Beta LLC")
    const aKeys = await ok(call(host, "GET", "/v1/billing/api-keys", { headers: a.key }))
    const ids = await ownEverything(a, aKeys.items?.[0]?.id ?? aKeys[0]?.id)
    const secretsOfA = [a.id, receiver.url, a.key["x-api-key"]!]

    const routes = [...routeTable(PartnerApi).values()].filter((r) => r.path.includes(":"))
    expect(routes.length).toBeGreaterThanOrEqual(14)
    const answers: Array<string> = []
    for (const route of routes)
      for (const [kind, id] of Object.entries(ids)) {
        const path = route.path.replace(/:[A-Za-z]+/g, id)
        const headers = route.sessionOnly ? b.cookie : b.key
        const res = await call(host, route.method, path, { headers, body: bodyFor(route.method, route.path) })
        const name = `${route.method} ${route.path}`
        const allowed = NO_OP_ON_FOREIGN.has(name) ? [200] : [400, 404]
        answers.push(`${name} with A's ${kind} id: ${res.status}`)
        expect(allowed, `${name} with A's ${kind} id answered ${res.status}: ${res.text}`).toContain(res.status)
        for (const secret of secretsOfA) expect(res.text, `${name} leaked A's data`).not.toContain(secret)
      }
    expect(answers.length).toBe(routes.length * Object.keys(ids).length)

    // A's resources are untouched: its key works, its endpoint is active, its task and invoice stand.
    const endpoints = await ok(call(host, "GET", "/v1/webhooks/endpoints", { headers: a.key }))
    const list = endpoints.items ?? endpoints
    expect(list.find((e: { id: string }) => e.id === ids.endpoint)).toMatchObject({ active: true })
    await ok(call(host, "GET", `/v1/tasks/${ids.task}`, { headers: a.key }))
    await ok(call(host, "GET", `/v1/billing/legal-invoices/${ids.invoice}/pdf`, { headers: a.key }))
  })
})

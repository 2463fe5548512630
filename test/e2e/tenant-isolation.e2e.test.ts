/**
 * Tenant isolation sweep against the real host: partner A owns one of every resource with an id
 * (key, webhook endpoint, delivery, task, invoice, payment); partner B calls every route that takes
 * an id, with each of A's ids. The routes come from the HttpApi's route table, so a new route is
 * swept without editing this test. Every answer must be 404 (or 400 for an id of the wrong shape),
 * or the spec's no-op for revoking a foreign key; no answer may carry A's data, and A's resources
 * are unchanged afterwards. The audit log is swept too: B's `GET /v1/audit-log` (with action and
 * date filters, with a cursor taken from A's pages) and the admin listing of B show none of A's
 * records.
 */
import { PartnerApi, routeTable } from "@frank/core/http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { adminCredit, adminHeaders, newPartner, type Partner, startReceiver, type Receiver } from "./hostClient.js"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"

let host: RunningHost
let receiver: Receiver
beforeAll(async () => {
  // On PostgreSQL when DATABASE_URL is set (CI): the host starts faster than on embedded PGlite.
  const database = process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}
  // Every route with every id on two keys: more calls than one key may make in a minute.
  host = await spawnHost({
    FRANK_ALLOW_PRIVATE_NETWORK: "true",
    FRANK_TRUST_PROXY: "true",
    FRANK_RATE_LIMIT_MULTIPLIER: "10",
    ...database
  })
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
  it("the audit log answers a partner only its own records, whatever the filter or cursor", async () => {
    const a = await newPartner(host, "Alpha Audit LLC")
    const b = await newPartner(host, "Beta Audit LLC")
    // A grant with terms, an alert, an endpoint: A's records of the kinds B filters by.
    const grant = await call(host, "POST", `/admin/v1/partners/${a.id}/credits`, {
      headers: adminHeaders(host),
      body: {
        amountFranks: 100,
        kind: "bonus",
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
        priority: 5
      }
    })
    expect(grant.status, grant.text).toBe(201)
    const alert = await ok(
      call(host, "POST", "/v1/billing/alerts", { headers: a.key, body: { thresholdFranks: 10 } }),
      201
    )
    const endpoint = await ok(
      call(host, "POST", "/v1/webhooks/endpoints", { headers: a.key, body: { url: receiver.url } }),
      201
    )
    await ok(call(host, "POST", "/v1/webhooks/endpoints", { headers: b.key, body: { url: receiver.url } }), 201)

    const pageOf = async (who: Record<string, string>, query: string) =>
      ok(call(host, "GET", `/v1/audit-log?${query}`, { headers: who }))
    const all = async (who: Record<string, string>) => (await pageOf(who, "limit=100")).items as Array<AuditItem>
    const aItems = await all(a.key)
    const aIds = new Set(aItems.flatMap((r) => [r.id, r.target.id]))
    for (const [action, id] of [
      ["credit.added", grant.json.transactionId],
      ["balance_alert.created", alert.id],
      ["webhook_endpoint.created", endpoint.id]
    ])
      expect(
        aItems.some((r) => r.action === action && r.target.id === id),
        `A's ${action}`
      ).toBe(true)
    const noneOfA = (items: ReadonlyArray<AuditItem>, what: string) => {
      for (const r of items)
        expect(aIds.has(r.id) || aIds.has(r.target.id), `${what} showed A's ${r.action}`).toBe(false)
    }
    const aCursor = (await pageOf(a.key, "limit=2")).nextCursor as string
    expect(aCursor).toEqual(expect.any(String))
    const today = new Date().toISOString().slice(0, 10)
    const queries = [
      "limit=100",
      "action=credit.added",
      "action=balance_alert.created",
      "action=webhook_endpoint.created",
      `dateFrom=${today}&limit=100`,
      `cursor=${aCursor}&limit=100`,
      `action=webhook_endpoint.created&cursor=${aCursor}`
    ]
    for (const who of [b.key, b.cookie])
      for (const q of queries) {
        const page = await pageOf(who, q)
        noneOfA(page.items, `B's GET /v1/audit-log?${q}`)
        expect(JSON.stringify(page)).not.toContain(a.id)
      }
    // B sees its own endpoint, so the filtered pages above were not empty by accident.
    expect((await pageOf(b.key, "action=webhook_endpoint.created")).items).toHaveLength(1)

    // The admin listing of B, with and without A's cursor, and an unknown partner's.
    for (const q of ["limit=100", `cursor=${aCursor}&limit=100`, "action=credit.added"]) {
      const r = await ok(
        call(host, "GET", `/admin/v1/partners/${b.id}/audit-log?${q}`, { headers: adminHeaders(host) })
      )
      noneOfA(r.items, `admin listing of B ?${q}`)
    }
    const adminA = await ok(
      call(host, "GET", `/admin/v1/partners/${a.id}/audit-log?limit=100`, { headers: adminHeaders(host) })
    )
    expect(adminA.items.map((r: AuditItem) => r.id)).toEqual(aItems.map((r) => r.id))
    const unknown = await call(host, "GET", `/admin/v1/partners/${crypto.randomUUID()}/audit-log`, {
      headers: adminHeaders(host)
    })
    expect(unknown.status, unknown.text).toBe(404)
  })
})

interface AuditItem {
  readonly id: string
  readonly action: string
  readonly target: { readonly type: string; readonly id: string }
}

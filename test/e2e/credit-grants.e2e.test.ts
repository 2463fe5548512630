/**
 * End-to-end: expiring bonus credit and balance alerts through the real host process (embedded
 * PGlite), as an operator and a partner's integration meet them. The operator credits bonuses
 * with `expiresAt` / `priority` over the admin API and through `frank credits add`; the partner
 * reads them at `GET /v1/billing/credit-grants` and in the balance's `expiring`, sees a task's hold
 * drawn from the grant spent first, and keeps balance alerts with its cabinet session or a full key;
 * the OpenAPI document says all of it (and the task's `expiresAt` / `lateReport`).
 */
import { execFile } from "node:child_process"
import { resolve } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { adminHeaders, newPartner, type Partner } from "./hostClient.js"
import { call, type RunningHost, spawnHost } from "./spawnHost.js"

const BIN = resolve(import.meta.dirname, "../../packages/host/bin/frank.mjs")
const DAY_MS = 86_400_000

let host: RunningHost

beforeAll(async () => {
  // Tasks stay queued (the sandbox finishes nothing by itself), so a hold stays open to look at.
  host = await spawnHost({ FRANK_TRUST_PROXY: "true", FRANK_SANDBOX_TASK_SECONDS: "0" })
}, 120_000)

afterAll(async () => {
  const code = await host?.stop()
  expect(code).toBe(0)
}, 60_000)

const credit = (partnerId: string, body: Record<string, unknown>) =>
  call(host, "POST", `/admin/v1/partners/${partnerId}/credits`, { headers: adminHeaders(host), body })

const grantsOf = async (headers: Record<string, string>) => {
  const r = await call(host, "GET", "/v1/billing/credit-grants", { headers })
  expect(r.status, r.text).toBe(200)
  return r.json.items as Array<Record<string, unknown>>
}

/** `frank` run as an operator runs it, against the spawned host. */
const frank = async (args: ReadonlyArray<string>) => {
  const argv = ["--conditions=@frank/source", BIN, ...args, "--url", host.baseUrl, "--token", host.adminToken]
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, argv, { encoding: "utf8", timeout: 90_000 })
    return { status: 0, stdout, stderr }
  } catch (e) {
    const failed = e as { code?: number; stdout?: string; stderr?: string }
    return { status: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? String(e) }
  }
}

describe("expiring bonus credit", () => {
  let partner: Partner
  const soon = new Date(Date.now() + 10 * DAY_MS).toISOString()

  beforeAll(async () => {
    partner = await newPartner(host, "Grants LLC")
  })

  it("a bonus with expiresAt and priority becomes a grant; other kinds and bad terms are 400", async () => {
    const early = await credit(partner.id, { amountFranks: 300, kind: "bonus", expiresAt: soon, priority: 10 })
    expect(early.status, early.text).toBe(201)
    const lasting = await credit(partner.id, { amountFranks: 200, kind: "bonus", priority: 80 })
    expect(lasting.status, lasting.text).toBe(201)
    const plain = await credit(partner.id, { amountFranks: 100, kind: "adjustment" })
    expect(plain.status, plain.text).toBe(201)

    // Shape and kind are the request's (VALIDATION_FAILED); a past instant is the ledger's rule.
    const refused: ReadonlyArray<[Record<string, unknown>, string]> = [
      [{ amountFranks: 5, kind: "adjustment", expiresAt: soon }, "VALIDATION_FAILED"],
      [{ amountFranks: 5, kind: "adjustment", priority: 10 }, "VALIDATION_FAILED"],
      [{ amountFranks: 5, kind: "bonus", expiresAt: new Date(Date.now() - 60_000).toISOString() }, "GRANT_INVALID"],
      [{ amountFranks: 5, kind: "bonus", expiresAt: "next tuesday" }, "VALIDATION_FAILED"],
      [{ amountFranks: 5, kind: "bonus", priority: 101 }, "VALIDATION_FAILED"],
      [{ amountFranks: 5, kind: "bonus", priority: -1 }, "VALIDATION_FAILED"],
      [{ amountFranks: 5, kind: "bonus", priority: 1.5 }, "VALIDATION_FAILED"]
    ]
    for (const [body, code] of refused) {
      const r = await credit(partner.id, body)
      expect(r.status, `${JSON.stringify(body)} → ${r.text}`).toBe(400)
      expect(r.json.code, r.text).toBe(code)
    }

    const grants = await grantsOf(partner.key)
    // Newest first; the adjustment is no grant, and no refused credit left one.
    expect(grants.map((g) => g.id)).toEqual([lasting.json.transactionId, early.json.transactionId])
    expect(grants[1]).toMatchObject({
      grantedFranks: 300,
      remainingFranks: 300,
      reservedFranks: 0,
      priority: 10,
      expiresAt: soon,
      expiredAt: null
    })
    expect(grants[0]).toMatchObject({ grantedFranks: 200, remainingFranks: 200, priority: 80, expiresAt: null })

    const balance = await call(host, "GET", "/v1/billing/balance", { headers: partner.key })
    expect(balance.status, balance.text).toBe(200)
    expect(balance.json).toMatchObject({ total: 600, available: 600 })
    expect(balance.json.expiring).toEqual([{ amountFranks: 300, expiresAt: soon, grantId: early.json.transactionId }])
  })

  it("a task's hold draws from the lowest priority number first", async () => {
    const launched = await call(host, "POST", "/v1/tasks", {
      headers: partner.key,
      body: { modelId: "gpt-image-1", prompt: "a lighthouse at dusk", quality: "low" }
    })
    expect(launched.status, launched.text).toBe(201)
    const balance = await call(host, "GET", "/v1/billing/balance", { headers: partner.key })
    const reserved = balance.json.reserved as number
    expect(reserved).toBeGreaterThan(0)
    const [lasting, early] = await grantsOf(partner.key)
    expect(early).toMatchObject({ priority: 10, remainingFranks: 300, reservedFranks: reserved })
    expect(lasting).toMatchObject({ priority: 80, remainingFranks: 200, reservedFranks: 0 })
    // Held money is still the grant's until charged: the next expiry names the whole remainder.
    expect(balance.json.expiring[0].amountFranks).toBe(300)
  })

  it("credit-grants needs billing:read; a key without it is 403", async () => {
    const cookie = partner.cookie
    const reader = await call(host, "POST", "/v1/billing/api-keys", {
      headers: cookie,
      body: { label: "reports", scopes: ["billing:read"] }
    })
    expect(reader.status, reader.text).toBe(201)
    expect(await grantsOf({ "x-api-key": reader.json.key })).toHaveLength(2)
    const other = await call(host, "GET", "/v1/billing/credit-grants", { headers: partner.monitor })
    expect(other.status, other.text).toBe(403)
    expect(other.json.code).toBe("API_KEY_SCOPE_REQUIRED")
  })

  it("frank credits add --expires-at --priority credits a grant; the server's refusals exit 1", async () => {
    const at = new Date(Date.now() + 3 * DAY_MS).toISOString()
    const added = await frank([
      "credits",
      "add",
      "--partner",
      partner.id,
      "--amount",
      "25.5",
      "--kind",
      "bonus",
      "--expires-at",
      at,
      "--priority",
      "5"
    ])
    expect(added.status, added.stderr).toBe(0)
    const { transactionId } = JSON.parse(added.stdout) as { transactionId: string }
    const grants = await grantsOf(partner.key)
    expect(grants[0]).toMatchObject({ id: transactionId, grantedFranks: 25.5, priority: 5, expiresAt: at })
    const balance = await call(host, "GET", "/v1/billing/balance", { headers: partner.key })
    expect(balance.json.expiring.map((e: { grantId: string }) => e.grantId)).toEqual([transactionId, grants[2]?.id])

    const adjustment = await frank([
      "credits",
      "add",
      "--partner",
      partner.id,
      "--amount",
      "5",
      "--kind",
      "adjustment",
      "--expires-at",
      at
    ])
    expect(adjustment.status).toBe(1)
    expect(adjustment.stderr).toContain("the host answered 400")
    expect(adjustment.stderr).toContain("only a bonus may expire")
    const outOfRange = await frank([
      "credits",
      "add",
      "--partner",
      partner.id,
      "--amount",
      "5",
      "--kind",
      "bonus",
      "--priority",
      "101"
    ])
    expect(outOfRange.status).toBe(1)
    expect(outOfRange.stderr).toContain("the host answered 400")
    expect(await grantsOf(partner.key)).toHaveLength(3)
  }, 240_000)
})

describe("balance alerts with a cabinet session or a full key", () => {
  let partner: Partner

  beforeAll(async () => {
    partner = await newPartner(host, "Alerts LLC")
  })

  it("a session creates, lists and deletes alerts; a full key does too; limits and refusals", async () => {
    const session = partner.cookie
    const made = await call(host, "POST", "/v1/billing/alerts", {
      headers: { ...session, "idempotency-key": "alert-1" },
      body: { thresholdFranks: 500 }
    })
    expect(made.status, made.text).toBe(201)
    expect(made.json).toMatchObject({ thresholdFranks: 500, state: "triggered" })
    // The session's Idempotency-Key is claimed like a key's: the retry answers the same alert.
    const retried = await call(host, "POST", "/v1/billing/alerts", {
      headers: { ...session, "idempotency-key": "alert-1" },
      body: { thresholdFranks: 500 }
    })
    expect(retried.status, retried.text).toBe(201)
    expect(retried.headers.get("idempotent-replayed")).toBe("true")
    expect(retried.json.id).toBe(made.json.id)

    const byKey = await call(host, "POST", "/v1/billing/alerts", {
      headers: partner.key,
      body: { thresholdFranks: 1_000.5 }
    })
    expect(byKey.status, byKey.text).toBe(201)
    const listed = await call(host, "GET", "/v1/billing/alerts", { headers: session })
    expect(listed.status, listed.text).toBe(200)
    expect(listed.json.items.map((a: { thresholdFranks: number }) => a.thresholdFranks).sort()).toEqual([1_000.5, 500])

    for (const thresholdFranks of [0, 0.5, 10_000_001]) {
      const bad = await call(host, "POST", "/v1/billing/alerts", { headers: session, body: { thresholdFranks } })
      expect(bad.status, `${thresholdFranks}: ${bad.text}`).toBe(400)
    }
    const restricted = await call(host, "POST", "/v1/billing/alerts", {
      headers: partner.monitor,
      body: { thresholdFranks: 10 }
    })
    expect(restricted.status, restricted.text).toBe(403)
    expect(restricted.json.code).toBe("API_KEY_SCOPE_REQUIRED")
    const crossSite = await call(host, "POST", "/v1/billing/alerts", {
      headers: { ...session, origin: "https://evil.example" },
      body: { thresholdFranks: 10 }
    })
    expect(crossSite.status, crossSite.text).toBe(403)
    expect(crossSite.json.code).toBe("CROSS_SITE_REQUEST")
    const anonymous = await call(host, "POST", "/v1/billing/alerts", { body: { thresholdFranks: 10 } })
    expect(anonymous.status, anonymous.text).toBe(401)

    for (const thresholdFranks of [10, 20, 30]) {
      const r = await call(host, "POST", "/v1/billing/alerts", { headers: session, body: { thresholdFranks } })
      expect(r.status, r.text).toBe(201)
    }
    const sixth = await call(host, "POST", "/v1/billing/alerts", { headers: session, body: { thresholdFranks: 40 } })
    expect(sixth.status, sixth.text).toBe(409)
    expect(sixth.json.code).toBe("ALERT_LIMIT_REACHED")

    const deleted = await call(host, "DELETE", `/v1/billing/alerts/${made.json.id}`, { headers: session })
    expect(deleted.status, deleted.text).toBe(200)
    expect(deleted.json).toEqual({ id: made.json.id, deleted: true })
    const again = await call(host, "DELETE", `/v1/billing/alerts/${made.json.id}`, { headers: session })
    expect(again.status, again.text).toBe(404)
    expect(again.json.code).toBe("ALERT_NOT_FOUND")
    const byKeyDeleted = await call(host, "DELETE", `/v1/billing/alerts/${byKey.json.id}`, { headers: partner.key })
    expect(byKeyDeleted.status, byKeyDeleted.text).toBe(200)
    const left = await call(host, "GET", "/v1/billing/alerts", { headers: partner.key })
    expect(left.json.items).toHaveLength(3)
  })

  it("another partner's session neither sees nor deletes them", async () => {
    const other = await newPartner(host, "Other LLC")
    const mine = await call(host, "GET", "/v1/billing/alerts", { headers: partner.key })
    const id = mine.json.items[0].id as string
    const foreign = await call(host, "DELETE", `/v1/billing/alerts/${id}`, { headers: other.cookie })
    expect(foreign.status, foreign.text).toBe(404)
    const theirs = await call(host, "GET", "/v1/billing/alerts", { headers: other.cookie })
    expect(theirs.json.items).toEqual([])
    expect((await call(host, "GET", "/v1/billing/alerts", { headers: partner.key })).json.items).toHaveLength(3)
  })
})

describe("the OpenAPI document", () => {
  it("documents grants, alerts (session or key), the admin grant terms, hold expiry and lateReport", async () => {
    const doc = (await call(host, "GET", "/openapi.json")).json
    const schemas = doc.components.schemas
    const text = (v: unknown) => JSON.stringify(v)
    const schemesOf = (op: { security?: ReadonlyArray<Record<string, unknown>> }) =>
      (op.security ?? []).flatMap((s) => Object.keys(s))

    const grants = doc.paths["/v1/billing/credit-grants"].get
    expect(text(grants.responses["200"])).toContain("CreditGrantList")
    expect(Object.keys(schemas.CreditGrant.properties)).toEqual(
      expect.arrayContaining(["grantedFranks", "remainingFranks", "reservedFranks", "priority", "expiresAt"])
    )
    expect(Object.keys(schemas.Balance.properties)).toContain("expiring")

    const create = doc.paths["/v1/billing/alerts"].post
    const remove = doc.paths["/v1/billing/alerts/{id}"].delete
    for (const op of [create, remove, doc.paths["/v1/billing/alerts"].get])
      expect(schemesOf(op)).toEqual(expect.arrayContaining(["apiKey", "session"]))
    expect(text(create.responses["409"])).toContain("ALERT_LIMIT_REACHED")
    expect(text(create.responses["403"])).toContain("CROSS_SITE_REQUEST")
    expect(text(remove.responses["404"])).toContain("ALERT_NOT_FOUND")

    const credit = doc.paths["/admin/v1/partners/{id}/credits"].post
    const body = credit.requestBody.content["application/json"].schema
    const payload = body.$ref === undefined ? body : schemas[String(body.$ref).split("/").pop() ?? ""]
    expect(Object.keys(payload.properties)).toEqual(expect.arrayContaining(["expiresAt", "priority"]))
    expect(text(payload.properties.priority)).toMatch(/"minimum":0[\s\S]*"maximum":100|Bonus only/)
    expect(text(credit.responses["400"])).toContain("GRANT_INVALID")

    const task = schemas.Task.properties
    expect(text(task.expiresAt)).toContain("TASK_EXPIRED")
    expect(text(task.lateReport)).toContain("settled nothing")
  })
})

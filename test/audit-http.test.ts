/**
 * The audit log through the partner API, served in-process on memory stores: changes made with a
 * cabinet session and with a full key are recorded with their actor and request, no record holds
 * a raw key, secret or token, `GET /v1/audit-log` pages by cursor and filters, and it opens to a
 * session or a full key only.
 */
import { randomUUID } from "node:crypto"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Access } from "@frank/core"
import { MemoryLedgerStore, MemoryWebhookStore } from "@frank/core/testing"
import { expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { partnerApiServer } from "./support/partnerApiServer.js"

const Server = partnerApiServer(Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore.layer))

interface Caller {
  readonly key?: string
  readonly session?: string
}

const send = (who: Caller, method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown, headers = {}) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    let req = HttpClientRequest.make(method)(path).pipe(HttpClientRequest.setHeaders(headers))
    if (who.key !== undefined) req = HttpClientRequest.setHeader(req, "x-api-key", who.key)
    if (who.session !== undefined) req = HttpClientRequest.setHeader(req, "cookie", `service_token=${who.session}`)
    if (body !== undefined) req = yield* HttpClientRequest.bodyJson(req, body)
    const res = yield* client.execute(req)
    const text = yield* res.text
    return { status: res.status, text, json: text.length > 0 ? JSON.parse(text) : undefined }
  })

it.live("every change through the API is recorded with its actor and request; secrets never are", () =>
  Effect.gen(function* () {
    const access = yield* Access.Access
    const partner = yield* access.createPartner("Trail LLC")
    const session = yield* access.createSession(partner.id)
    const owner: Caller = { session: session.token }
    const issued = yield* send(owner, "POST", "/v1/billing/api-keys", { label: "ci" }, { "idempotency-key": "k-1" })
    expect(issued.status).toBe(201)
    const key: Caller = { key: issued.json.key }
    expect((yield* send(owner, "PATCH", `/v1/billing/api-keys/${issued.json.id}`, { label: "ci-2" })).status).toBe(200)
    const narrow = yield* send(owner, "POST", "/v1/billing/api-keys", { scopes: ["billing:read"] })
    const url = `https://audit-${randomUUID().slice(0, 8)}.example/hook`
    const created = yield* send(key, "POST", "/v1/webhooks/endpoints", { url }, { "x-request-id": "req-create-1" })
    expect(created.status).toBe(201)
    const endpoint = `/v1/webhooks/endpoints/${created.json.id}`
    expect((yield* send(key, "PATCH", endpoint, { active: false })).status).toBe(200)
    expect((yield* send(key, "PATCH", endpoint, { active: true })).status).toBe(200)
    const rotated = yield* send(key, "POST", `${endpoint}/rotate-secret`)
    expect(rotated.status).toBe(200)
    expect((yield* send(key, "DELETE", endpoint)).status).toBe(200)
    expect((yield* send(owner, "DELETE", `/v1/billing/api-keys/${narrow.json.id}`)).status).toBe(200)
    // A refused change leaves no record.
    expect((yield* send(key, "PATCH", endpoint, { active: false })).status).toBe(404)

    const log = yield* send(key, "GET", "/v1/audit-log?limit=100")
    expect(log.status).toBe(200)
    const items = log.json.items as ReadonlyArray<
      Record<string, unknown> & { action: string; ip?: string; requestId?: string }
    >
    expect(items.map((r) => r.action)).toEqual([
      "api_key.revoked",
      "webhook_endpoint.deleted",
      "webhook_endpoint.secret_rotated",
      "webhook_endpoint.resumed",
      "webhook_endpoint.paused",
      "webhook_endpoint.created",
      "api_key.issued",
      "api_key.renamed",
      "api_key.issued",
      "session.created",
      "partner.created"
    ])
    const [revoked, , , , , createdRecord, , renamed, first] = items
    expect(first).toMatchObject({
      actor: { type: "session", id: session.sessionId, label: "cabinet session" },
      target: { type: "api_key", id: issued.json.id },
      idempotencyKey: "k-1",
      changes: ["access", "label"]
    })
    expect(first?.ip).toBeTruthy()
    expect(first?.requestId).toMatch(/\S+/)
    expect(renamed).toMatchObject({ action: "api_key.renamed", changes: ["label"] })
    expect(createdRecord).toMatchObject({
      actor: { type: "api_key", id: issued.json.id, label: "ci-2" },
      target: { type: "webhook_endpoint", id: created.json.id },
      requestId: "req-create-1",
      idempotencyKey: null,
      changes: ["url", "secret"]
    })
    expect(revoked).toMatchObject({ target: { id: narrow.json.id }, changes: ["revokedAt"] })
    expect(items.at(-1)).toMatchObject({ actor: { type: "system", id: null } })
    for (const secret of [issued.json.key, narrow.json.key, created.json.secret, rotated.json.secret, session.token])
      expect(log.text).not.toContain(secret)
  }).pipe(Effect.provide(Server))
)

it.live("pages by cursor, filters by action and date, refuses bad input with VALIDATION_FAILED", () =>
  Effect.gen(function* () {
    const access = yield* Access.Access
    const partner = yield* access.createPartner("Pages LLC")
    const session = yield* access.createSession(partner.id)
    const owner: Caller = { session: session.token }
    for (let i = 0; i < 5; i++) yield* send(owner, "POST", "/v1/billing/api-keys", { label: `k${i}` })
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const page: { json: { items: Array<{ id: string }>; nextCursor: string | null } } = yield* send(
        owner,
        "GET",
        `/v1/audit-log?limit=2${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`
      )
      seen.push(...page.json.items.map((r) => r.id))
      cursor = page.json.nextCursor
      pages++
    } while (cursor !== null)
    // 5 keys, the session and the partner.
    expect(seen).toHaveLength(7)
    expect(new Set(seen).size).toBe(7)
    expect(pages).toBe(4)
    const issuedOnly = yield* send(owner, "GET", "/v1/audit-log?action=api_key.issued")
    expect(issuedOnly.json.items).toHaveLength(5)
    const future = yield* send(owner, "GET", "/v1/audit-log?dateFrom=2999-01-01")
    expect(future.json).toEqual({ items: [], nextCursor: null })
    for (const bad of ["limit=0", "limit=101", "cursor=nope", "dateFrom=yesterday", "action=DROP%20TABLE"]) {
      const refused = yield* send(owner, "GET", `/v1/audit-log?${bad}`)
      expect(refused.status, bad).toBe(400)
      expect(refused.json.code, bad).toBe("VALIDATION_FAILED")
    }
  }).pipe(Effect.provide(Server))
)

it.live("opens to a cabinet session or a full key; a restricted key and no credential are refused", () =>
  Effect.gen(function* () {
    const access = yield* Access.Access
    const partner = yield* access.createPartner("Scopes LLC")
    const full = (yield* access.issueKey(partner.id, {})).raw
    const restricted = (yield* access.issueKey(partner.id, { scopes: ["billing:read"] })).raw
    expect((yield* send({ key: full }, "GET", "/v1/audit-log")).status).toBe(200)
    const refused = yield* send({ key: restricted }, "GET", "/v1/audit-log")
    expect(refused.status).toBe(403)
    expect(refused.json.code).toBe("API_KEY_SCOPE_REQUIRED")
    const anonymous = yield* send({}, "GET", "/v1/audit-log")
    expect(anonymous.status).toBe(401)
  }).pipe(Effect.provide(Server))
)

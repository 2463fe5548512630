/**
 * The node:http shortcut for keys over their own limit: once the guard reported a key, its
 * requests on routes the per-key limit counts are answered 429 (envelope, RateLimit-* and
 * Retry-After) without reaching the API, until the window ends; nothing else is touched. Every
 * 429 is counted by limit and route template; early refusals are logged once per key and window
 * with their count; a key revoked or changed through this host leaves the shortcut at once.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { Access, Ids, RateLimit } from "@frank/core"
import type { Context } from "effect"

type AccessShape = Context.Tag.Service<typeof Access.Access>
import { Clock, Effect, HashMap, Logger } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { makeRefusedKeys, releasingOnChange, withRefusedKeys } from "../src/server/refusedKeyShortcut.js"

const KEY = `svc_live_${"1".repeat(64)}`
const OTHER = `svc_live_${"2".repeat(64)}`
const WINDOW_END = Date.UTC(2026, 10, 2, 9, 1, 0)
const verdict: RateLimit.LimitVerdict = {
  allowed: false,
  limit: 60,
  remaining: 0,
  resetSeconds: 20,
  resetAtMs: WINDOW_END,
  rule: { key: "key:k1", name: "api_key", limit: 60, windowMs: 60_000 }
}

const PARTNER = "p1" as Ids.PartnerId
const KEY_ID = "k1" as Ids.KeyId
const keyOf = (raw: string, expiresAt: number | null = null) => ({ raw, id: KEY_ID, partnerId: PARTNER, expiresAt })

let server: Server | undefined
afterEach(() => new Promise<void>((done) => (server === undefined ? done() : server.close(() => done()))))

const setUp = async () => {
  let now = WINDOW_END - 20_000
  const clock = { ...Clock.make(), unsafeCurrentTimeMillis: () => now } as Clock.Clock
  const counted: Array<string> = []
  const refused = makeRefusedKeys({
    clock,
    rateLimited: (limit, route) => counted.push(`${limit} ${route}`),
    routeOf: (method, path) => `${method} template of ${path}`
  })
  let reached = 0
  server = withRefusedKeys(createServer, refused.answer)()
  server.on("request", (_req, res) => {
    reached++
    res.end("api")
  })
  await new Promise<void>((done) => server!.listen(0, "127.0.0.1", done))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    refused,
    counted,
    reached: () => reached,
    at: (ms: number) => {
      now = ms
    },
    get: (path: string, headers: Record<string, string>) => fetch(`${base}${path}`, { headers })
  }
}

describe("refused-key shortcut", () => {
  it("answers a reported key's counted routes with the 429 envelope until its window ends", async () => {
    const t = await setUp()
    expect((await t.get("/v1/billing/balance", { "x-api-key": KEY })).status).toBe(200)
    t.refused.listener.refused({ route: "/v1/billing/balance", verdict, key: keyOf(KEY) })
    const refused = await t.get("/v1/billing/balance?x=1", { "x-api-key": KEY })
    expect(refused.status).toBe(429)
    expect(await refused.json()).toMatchObject({ statusCode: 429, code: "RATE_LIMITED" })
    expect(refused.headers.get("retry-after")).toBe("20")
    expect(refused.headers.get("ratelimit-limit")).toBe("60")
    expect(refused.headers.get("ratelimit-remaining")).toBe("0")
    expect((await t.get("/v1/webhooks/endpoints", { authorization: `Bearer ${KEY}` })).status).toBe(429)
    expect(t.reached()).toBe(1)
    // Routes the per-key limit does not count, and other keys, go to the API.
    expect((await t.get("/v1/tasks", { "x-api-key": KEY })).status).toBe(200)
    expect((await t.get("/v1/billing/balance", { "x-api-key": OTHER })).status).toBe(200)
    expect(t.reached()).toBe(3)
    t.at(WINDOW_END - 1)
    expect((await t.get("/v1/billing/balance", { "x-api-key": KEY })).headers.get("retry-after")).toBe("1")
    t.at(WINDOW_END)
    expect((await t.get("/v1/billing/balance", { "x-api-key": KEY })).status).toBe(200)
    expect(t.reached()).toBe(4)
  })

  it("counts every 429 by limit and route template, early refusals with the template of their path", async () => {
    const t = await setUp()
    t.refused.listener.refused({
      route: "/v1/tasks",
      verdict: { ...verdict, rule: { ...verdict.rule, name: "ip_method" } }
    })
    t.refused.listener.refused({ route: "/v1/billing/balance", verdict, key: keyOf(KEY) })
    expect((await t.get("/v1/webhooks/endpoints/e1", { "x-api-key": KEY })).status).toBe(429)
    expect(t.counted).toEqual([
      "ip_method /v1/tasks",
      "api_key /v1/billing/balance",
      "api_key GET template of /v1/webhooks/endpoints/e1"
    ])
    // A refusal by another limit does not put a key in the shortcut.
    expect((await t.get("/v1/billing/balance", { "x-api-key": OTHER })).status).toBe(200)
  })

  it("a key revoked or changed through this host leaves at once; another partner's ids change nothing", async () => {
    const t = await setUp()
    const calls: Array<string> = []
    const access = releasingOnChange(
      {
        revokeKey: (partnerId, id) =>
          Effect.sync(() => calls.push(`revoke ${partnerId} ${id}`) > 0 && partnerId === PARTNER),
        changeKey: (partnerId, id) =>
          Effect.sync(() => calls.push(`change ${partnerId} ${id}`)).pipe(Effect.as({} as never))
      } as Partial<AccessShape> as AccessShape,
      t.refused
    )
    t.refused.listener.refused({ route: "/v1/billing/balance", verdict, key: keyOf(KEY) })
    await Effect.runPromise(access.revokeKey("p2" as Ids.PartnerId, KEY_ID))
    expect((await t.get("/v1/billing/balance", { "x-api-key": KEY })).status).toBe(429)
    expect(await Effect.runPromise(access.revokeKey(PARTNER, KEY_ID))).toBe(true)
    expect((await t.get("/v1/billing/balance", { "x-api-key": KEY })).status).toBe(200)
    // A request in flight during the revocation, refused after it, does not put the key back.
    t.refused.listener.refused({ route: "/v1/billing/balance", verdict, key: keyOf(KEY) })
    expect((await t.get("/v1/billing/balance", { "x-api-key": KEY })).status).toBe(200)
    // A change (not a revocation) releases the key; a later refusal holds it again.
    t.refused.listener.refused({
      route: "/v1/billing/balance",
      verdict,
      key: { ...keyOf(OTHER), id: "k2" as Ids.KeyId }
    })
    expect((await t.get("/v1/billing/balance", { "x-api-key": OTHER })).status).toBe(429)
    await Effect.runPromise(access.changeKey(PARTNER, "k2" as Ids.KeyId, {}))
    expect((await t.get("/v1/billing/balance", { "x-api-key": OTHER })).status).toBe(200)
    expect(calls).toEqual(["revoke p2 k1", "revoke p1 k1", "change p1 k2"])
  })

  it("a key expiring before its window ends is answered by the API from its expiry", async () => {
    const t = await setUp()
    t.refused.listener.refused({ route: "/v1/billing/balance", verdict, key: keyOf(KEY, WINDOW_END - 10_000) })
    expect((await t.get("/v1/billing/balance", { "x-api-key": KEY })).status).toBe(429)
    t.at(WINDOW_END - 10_000)
    expect((await t.get("/v1/billing/balance", { "x-api-key": KEY })).status).toBe(200)
  })

  it("logs a key's early refusals once per window, with their count, when the window ends", async () => {
    const t = await setUp()
    const lines: Array<Record<string, unknown>> = []
    const logger = Logger.make(({ message, annotations }) =>
      lines.push({ message, ...Object.fromEntries(HashMap.toEntries(annotations)) })
    )
    const sweep = () =>
      Effect.runPromise(t.refused.sweep.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger))))
    t.refused.listener.refused({ route: "/v1/billing/balance", verdict, key: keyOf(KEY) })
    t.refused.listener.refused({
      route: "/v1/billing/balance",
      verdict,
      key: { ...keyOf(OTHER), id: "k2" as Ids.KeyId }
    })
    for (let i = 0; i < 5; i++) expect((await t.get("/v1/billing/balance", { "x-api-key": KEY })).status).toBe(429)
    await sweep()
    expect(lines).toEqual([])
    t.at(WINDOW_END)
    await sweep()
    await sweep()
    // One line for KEY (5 early refusals); none for OTHER, which sent nothing more.
    expect(lines).toEqual([
      expect.objectContaining({
        partnerId: PARTNER,
        keyId: KEY_ID,
        refused: 5,
        limit: 60,
        windowEnd: "2026-11-02T09:01:00.000Z"
      })
    ])
    expect((await t.get("/v1/billing/balance", { "x-api-key": KEY })).status).toBe(200)
  })
})

/**
 * Contract suite of partners, API keys, sessions and rate-limit counters, run on every engine.
 */
import { randomUUID } from "node:crypto"
import { Access, Ids, RateLimit } from "@frank/core"
import { expect, layer } from "@effect/vitest"
import { Effect, Either, Layer, Option, Redacted, TestClock } from "effect"
import type { ApiKeyStore, PartnerStore, RateLimitStore, SessionStore } from "@frank/core/stores"

const T0 = Date.UTC(2026, 10, 1, 12, 0, 0)

/** The machine code of a failure (StoreErrors carry none and fail the test). */
const codeOf = (e: { readonly _tag: string; readonly code?: string }) => ("code" in e ? e.code : e._tag)
const DAY = 86_400_000

export const accessContract = (
  engine: string,
  stores: Layer.Layer<ApiKeyStore | PartnerStore | SessionStore | RateLimitStore, unknown>
) => {
  const config: RateLimit.RateLimitConfig = {
    ...RateLimit.defaultRateLimitConfig,
    perApiKeyPerMinute: 3,
    perIpPerMethodPerMinute: 5
  }
  const Env = Layer.mergeAll(Access.Access.layer, RateLimit.RateLimiter.layer(config)).pipe(
    Layer.provideMerge(stores),
    Layer.provideMerge(Access.Secrets.layer(Redacted.make("test-pepper"))),
    Layer.provideMerge(Ids.Ids.layer)
  )

  layer(Env, { timeout: 120_000 })(`access contract on ${engine}`, (it) => {
    it.effect("issues keys once, stores only their hash, authenticates and lists them", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const access = yield* Access.Access
        const p = yield* access.createPartner("Acme")
        const full = yield* access.issueKey(p.id, { label: "ci" })
        expect(full.raw).toMatch(/^svc_live_[0-9a-f]{64}$/)
        expect(full.view).toMatchObject({
          label: "ci",
          access: "full",
          active: true,
          prefix: full.raw.slice(0, 16),
          expiresAt: null
        })
        const narrow = yield* access.issueKey(p.id, {
          scopes: ["usage:read", "billing:read", "usage:read"],
          expiresInDays: 30
        })
        expect(narrow.view.scopes).toEqual(["billing:read", "usage:read"])
        expect(narrow.view.expiresAt).toBe(new Date(T0 + 30 * DAY).toISOString())
        const authed = yield* access.authenticateKey(full.raw)
        expect(authed.partnerId).toBe(p.id)
        expect(authed.keyHash).not.toContain(full.raw.slice(9))
        const asNarrow = yield* access.listKeys(p.id, { restrictedKeyId: narrow.view.id })
        expect(asNarrow.find((k) => k.id === narrow.view.id)?.scopes).toEqual(["billing:read", "usage:read"])
        expect(asNarrow.find((k) => k.id === full.view.id)?.scopes).toBeNull()
        const asFull = yield* access.listKeys(p.id, {})
        expect(asFull.find((k) => k.id === full.view.id)?.scopes).toHaveLength(7)
        expect(asFull.find((k) => k.id === full.view.id)?.lastUsedAt).toBe(new Date(T0).toISOString())
      })
    )

    it.effect("refuses unknown, malformed, revoked, expired and legacy keys with their codes", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const access = yield* Access.Access
        const p = yield* access.createPartner("Refusals")
        const k = yield* access.issueKey(p.id, { expiresInDays: 1 })
        const fail = (raw: string) => Effect.flip(access.authenticateKey(raw))
        expect(yield* fail("")).toBeInstanceOf(Access.ApiKeyInvalid)
        expect(yield* fail("svc_live_nothex")).toBeInstanceOf(Access.ApiKeyInvalid)
        expect(yield* fail(`svc_live_${"0".repeat(64)}`)).toBeInstanceOf(Access.ApiKeyInvalid)
        yield* TestClock.setTime(T0 + DAY)
        expect(yield* fail(k.raw)).toBeInstanceOf(Access.ApiKeyExpired)
        // Still listed, inactive.
        expect((yield* access.listKeys(p.id, {})).find((x) => x.id === k.view.id)?.active).toBe(false)
        const r = yield* access.issueKey(p.id, {})
        expect(yield* access.revokeKey(p.id, r.view.id, "rotated")).toBe(true)
        expect(yield* access.revokeKey(p.id, r.view.id, "again")).toBe(true)
        expect(yield* fail(r.raw)).toBeInstanceOf(Access.ApiKeyInvalid)
        expect((yield* access.listKeys(p.id, {})).find((x) => x.id === r.view.id)?.revokeReason).toBe("rotated")
        const legacy = yield* access.issueLegacyKey(p.id)
        expect(legacy).toMatch(/^svc_[0-9a-f]{32}$/)
        expect(yield* fail(legacy)).toBeInstanceOf(Access.LegacyKeyForbidden)
        // Legacy keys are not listed.
        expect((yield* access.listKeys(p.id, {})).some((x) => x.prefix === legacy.slice(0, 16))).toBe(false)
      })
    )

    it.effect("a foreign or unknown id matches nothing when revoking or changing", () =>
      Effect.gen(function* () {
        const access = yield* Access.Access
        const a = yield* access.createPartner("A")
        const b = yield* access.createPartner("B")
        const ka = yield* access.issueKey(a.id, {})
        expect(yield* access.revokeKey(b.id, ka.view.id)).toBe(false)
        // A malformed id names no key: decoded at the edge, it never reaches the service.
        expect(Ids.parseId(Ids.KeyId)("not-a-uuid")).toEqual(Option.none())
        const change = yield* Effect.flip(access.changeKey(b.id, ka.view.id, { label: "x" }))
        expect(change._tag).toBe("ApiKeyNotFound")
        expect((yield* access.authenticateKey(ka.raw)).id).toBe(ka.view.id)
        expect(yield* access.listKeys(b.id, {})).toEqual([])
      })
    )

    it.effect("scopes only narrow; expiry never changes", () =>
      Effect.gen(function* () {
        const access = yield* Access.Access
        const p = yield* access.createPartner("Narrow")
        const full = yield* access.issueKey(p.id, {})
        const narrowed = yield* access.changeKey(p.id, full.view.id, {
          scopes: ["pricing:read", "billing:read"],
          label: "n"
        })
        expect(narrowed).toMatchObject({ access: "restricted", scopes: ["billing:read", "pricing:read"], label: "n" })
        const widen = yield* Effect.flip(
          access.changeKey(p.id, full.view.id, { scopes: ["billing:read", "media:run"] })
        )
        expect(codeOf(widen)).toBe("API_KEY_SCOPE_DOWNGRADE_FORBIDDEN")
        const back = yield* Effect.flip(access.changeKey(p.id, full.view.id, { scopes: null }))
        expect(codeOf(back)).toBe("API_KEY_SCOPE_DOWNGRADE_FORBIDDEN")
        const expiry = yield* Effect.flip(access.changeKey(p.id, full.view.id, { expiresInDays: 5 }))
        expect(codeOf(expiry)).toBe("API_KEY_EXPIRY_IMMUTABLE")
        const star = yield* Effect.flip(access.changeKey(p.id, full.view.id, { scopes: ["*"] }))
        expect(codeOf(star)).toBe("API_KEY_SCOPE_UNKNOWN")
        const empty = yield* Effect.flip(access.issueKey(p.id, { scopes: [] }))
        expect(codeOf(empty)).toBe("API_KEY_SCOPE_EMPTY")
        for (const days of [0, 366, 1.5])
          expect(codeOf(yield* Effect.flip(access.issueKey(p.id, { expiresInDays: days })))).toBe(
            "API_KEY_EXPIRY_OUT_OF_RANGE"
          )
      })
    )

    it.effect("25 concurrent issues leave exactly 20 active keys", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const access = yield* Access.Access
        const p = yield* access.createPartner("Quota")
        const results = yield* Effect.all(
          Array.from({ length: 25 }, () => Effect.either(access.issueKey(p.id, {}))),
          { concurrency: "unbounded" }
        )
        expect(results.filter(Either.isRight)).toHaveLength(20)
        const refused = results.filter(Either.isLeft)
        expect(refused).toHaveLength(5)
        for (const r of refused) expect(r.left).toBeInstanceOf(Access.ApiKeyQuotaExceeded)
        // Revoking one frees a slot; expired keys do not count either.
        const first = (yield* access.listKeys(p.id, {}))[0]!
        yield* access.revokeKey(p.id, first.id)
        yield* access.issueKey(p.id, {})
        expect((yield* access.listKeys(p.id, {})).filter((k) => k.active)).toHaveLength(20)
      })
    )

    it.effect("sessions authenticate until they expire", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const access = yield* Access.Access
        const p = yield* access.createPartner("Cabinet")
        const s = yield* access.createSession(p.id, 60)
        expect(s.expiresAt).toBe(T0 + 60_000)
        expect(yield* access.authenticateSession(s.token)).toEqual({ partnerId: p.id, sessionId: expect.any(String) })
        expect(yield* Effect.flip(access.authenticateSession("nope"))).toBeInstanceOf(Access.SessionRequired)
        expect(yield* Effect.flip(access.authenticateSession(""))).toBeInstanceOf(Access.SessionRequired)
        yield* TestClock.setTime(T0 + 60_000)
        expect(yield* Effect.flip(access.authenticateSession(s.token))).toBeInstanceOf(Access.SessionExpired)
        expect((yield* Effect.flip(access.createSession(Ids.PartnerId.make(randomUUID()))))._tag).toBe(
          "PartnerNotFound"
        )
      })
    )

    it.effect("a sign-in link opens one session within 15 minutes; sign-out ends the session", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const access = yield* Access.Access
        const p = yield* access.createPartner("Link")
        const link = yield* access.createSignIn(p.id, 3600)
        expect(link.expiresAt).toBe(T0 + 15 * 60_000)
        const opened = yield* access.redeemSignIn(link.token)
        expect(opened.partnerId).toBe(p.id)
        expect(opened.expiresAt).toBe(T0 + 3600_000)
        expect(yield* access.authenticateSession(opened.token)).toEqual({
          partnerId: p.id,
          sessionId: expect.any(String)
        })
        const reasonOf = (token: string) =>
          Effect.map(Effect.flip(access.redeemSignIn(token)), (e) =>
            e._tag === "SignInLinkInvalid" ? e.reason : e._tag
          )
        expect(yield* reasonOf(link.token)).toBe("used")
        expect(yield* reasonOf("not-a-link")).toBe("unknown")
        expect(yield* reasonOf("")).toBe("unknown")

        const late = yield* access.createSignIn(p.id)
        yield* TestClock.setTime(T0 + 15 * 60_000)
        expect(yield* reasonOf(late.token)).toBe("expired")
        expect((yield* Effect.flip(access.createSignIn(Ids.PartnerId.make(randomUUID()))))._tag).toBe("PartnerNotFound")

        yield* access.endSession(opened.token)
        expect(yield* Effect.flip(access.authenticateSession(opened.token))).toBeInstanceOf(Access.SessionRequired)
        // A concurrent double click opens one session, not two.
        const raced = yield* access.createSignIn(p.id)
        const both = yield* Effect.all(
          [access.redeemSignIn(raced.token), access.redeemSignIn(raced.token)].map(Effect.either),
          {
            concurrency: 2
          }
        )
        expect(both.filter(Either.isRight)).toHaveLength(1)
      })
    )

    it.effect("rate limits: window boundaries, several limits at once, refused requests charge nothing", () =>
      Effect.gen(function* () {
        const limiter = yield* RateLimit.RateLimiter
        const window = 60_000
        const start = Math.ceil(T0 / window) * window + window * Math.floor(Math.random() * 1000)
        yield* TestClock.setTime(start + 30_000)
        const ip = `10.0.0.${Math.floor(Math.random() * 250)}`
        const key = `k-${start}-${ip}`
        const req = { method: "GET", route: "/v1/billing/balance", ip, apiKeyId: key }
        const d1 = yield* limiter.check(req)
        expect(d1.allowed).toBe(true)
        expect(d1.reported).toMatchObject({ limit: 3, remaining: 2, resetSeconds: 30 })
        yield* limiter.check(req)
        const d3 = yield* limiter.check(req)
        expect(d3.allowed).toBe(true)
        expect(d3.reported?.remaining).toBe(0)
        const d4 = yield* limiter.check(req)
        expect(d4.allowed).toBe(false)
        expect(d4.reported).toMatchObject({ limit: 3, remaining: 0, resetSeconds: 30 })
        expect(d4.reported?.rule.name).toBe("api_key")
        // The refused request did not charge the IP counter: 3 of 5 used, 2 left for other routes' keys.
        const other = yield* limiter.check({ method: "GET", route: "/v1/billing/balance", ip, apiKeyId: `${key}-2` })
        expect(other.verdicts.find((v) => v.rule.name === "ip_method")?.remaining).toBe(1)
        // Generation routes do not count against the key.
        const gen = yield* limiter.check({ method: "GET", route: "/v1/tasks", ip, apiKeyId: key })
        expect(gen.allowed).toBe(true)
        expect(gen.verdicts.map((v) => v.rule.name)).toEqual(["ip_method"])
        // One millisecond before the boundary still refused; at the boundary a new window.
        yield* TestClock.setTime(start + window - 1)
        expect((yield* limiter.check(req)).allowed).toBe(false)
        yield* TestClock.setTime(start + window)
        const fresh = yield* limiter.check(req)
        expect(fresh.allowed).toBe(true)
        expect(fresh.reported).toMatchObject({ remaining: 2, resetSeconds: 60 })
      })
    )

    it.effect("the per-IP exception table applies per route template", () =>
      Effect.gen(function* () {
        const limiter = yield* RateLimit.RateLimiter
        yield* TestClock.setTime(T0 + 7 * DAY)
        const ip = `192.0.2.${Math.floor(Math.random() * 250)}`
        const req = { method: "POST", route: "/v1/billing/payment/link", ip }
        for (let i = 0; i < 3; i++) expect((yield* limiter.check(req)).allowed).toBe(true)
        const refused = yield* limiter.check(req)
        expect(refused.allowed).toBe(false)
        expect(refused.reported?.limit).toBe(3)
        expect((yield* limiter.check({ ...req, route: "/v1/billing/balance", method: "GET" })).allowed).toBe(true)
      })
    )
  })
}

/**
 * Partners, API keys and sessions on memory, for simulations and fast tests. A semaphore stands in
 * for the SQL store's per-partner row lock.
 */
import { Access, type Ids } from "@frank/core"
import { Effect, Either, Layer } from "effect"
import { ApiKeyStore, type ApiKeyStoreShape, PartnerStore, SessionStore } from "@frank/core/stores"

/** `PartnerStore` in memory. */
export const partnerStoreLayer: Layer.Layer<PartnerStore> = Layer.sync(PartnerStore, () => {
  const partners = new Map<string, Access.Partner>()
  return {
    create: (p) => Effect.sync(() => void partners.set(p.id, p)),
    get: (id) => Effect.sync(() => partners.get(id))
  }
})

/** `SessionStore` in memory. */
export const sessionStoreLayer: Layer.Layer<SessionStore> = Layer.sync(SessionStore, () => {
  const byHash = new Map<string, Access.SessionRecord>()
  const signIns = new Map<string, { record: Access.SignInRecord; usedAt: number | null }>()
  return {
    create: (s) => Effect.sync(() => void byHash.set(s.tokenHash, s)),
    findByHash: (h) => Effect.sync(() => byHash.get(h)),
    remove: (h) => Effect.sync(() => void byHash.delete(h)),
    createSignIn: (record) => Effect.sync(() => void signIns.set(record.tokenHash, { record, usedAt: null })),
    redeemSignIn: (h, now) =>
      Effect.sync((): Access.SignInRedemption => {
        const found = signIns.get(h)
        if (found === undefined) return { _tag: "Refused", reason: "unknown" }
        if (found.usedAt !== null) return { _tag: "Refused", reason: "used" }
        if (found.record.expiresAt <= now) return { _tag: "Refused", reason: "expired" }
        found.usedAt = now
        return { _tag: "Redeemed", record: found.record }
      })
  }
})

export const makeApiKeyStore = Effect.gen(function* () {
  const keys = new Map<string, Access.ApiKeyRecord>()
  const lock = yield* Effect.makeSemaphore(1)
  const ofPartner = (partnerId: Ids.PartnerId) => [...keys.values()].filter((k) => k.partnerId === partnerId)
  const store: ApiKeyStoreShape = {
    issue: (partnerId, decide) =>
      lock.withPermits(1)(
        Effect.suspend(() => {
          const decided = decide(ofPartner(partnerId).filter((k) => k.kind === "live"))
          if (Either.isLeft(decided)) return Effect.fail(decided.left)
          keys.set(decided.right.id, decided.right)
          return Effect.succeed(decided.right)
        })
      ),
    insert: (key) => lock.withPermits(1)(Effect.sync(() => void keys.set(key.id, key))),
    update: (partnerId, id, decide) =>
      lock.withPermits(1)(
        Effect.suspend(() => {
          const key = keys.get(id)
          if (key === undefined || key.partnerId !== partnerId || key.kind !== "live") return Effect.succeed(undefined)
          const decided = decide(key)
          if (Either.isLeft(decided)) return Effect.fail(decided.left)
          keys.set(id, decided.right)
          return Effect.succeed(decided.right)
        })
      ),
    revoke: (partnerId, id, reason, now) =>
      lock.withPermits(1)(
        Effect.sync(() => {
          const key = keys.get(id)
          if (key === undefined || key.partnerId !== partnerId || key.kind !== "live") return false
          if (key.revokedAt === null) keys.set(id, { ...key, revokedAt: now, revokeReason: reason })
          return true
        })
      ),
    list: (partnerId) =>
      Effect.sync(() =>
        ofPartner(partnerId)
          .filter((k) => k.kind === "live")
          .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
      ),
    findByHash: (hash) => Effect.sync(() => [...keys.values()].find((k) => k.keyHash === hash)),
    touch: (partnerId, id, now) =>
      Effect.sync(() => {
        const key = keys.get(id)
        if (key === undefined || key.partnerId !== partnerId) return
        if (key.lastUsedAt === null || now - key.lastUsedAt >= Access.LAST_USED_RESOLUTION_MS)
          keys.set(id, { ...key, lastUsedAt: now })
      })
  }
  return store
})

/** `ApiKeyStore` in memory. */
export const apiKeyStoreLayer: Layer.Layer<ApiKeyStore> = Layer.effect(ApiKeyStore, makeApiKeyStore)

/** The three access stores. */
export const layer = Layer.mergeAll(partnerStoreLayer, sessionStoreLayer, apiKeyStoreLayer)

/**
 * Spec, Authentication: "Revocation takes effect on the next request (credentials are re-read on
 * every call)". A key revoked anywhere (here through Access, or by another instance straight in
 * the shared store) is refused on the very next request, with no time passing.
 */
import { MemoryAccessStores } from "@frank/adapters"
import { Access, Ids } from "@frank/core"
import { expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Redacted, TestClock } from "effect"
import { ApiKeyStore } from "@frank/core/stores"

const T0 = Date.UTC(2026, 10, 2, 9, 0, 0)

/** The memory key store, counting lookups by hash. */
const CountingKeys = Layer.effect(
  ApiKeyStore,
  Effect.map(ApiKeyStore, (store) => {
    const counted = {
      ...store,
      findByHash: (hash: string) =>
        Effect.zipRight(
          Effect.sync(() => lookups.n++),
          store.findByHash(hash)
        )
    }
    return counted
  })
).pipe(Layer.provide(MemoryAccessStores.layer))
const lookups = { n: 0 }

const Env = Access.Access.layer.pipe(
  Layer.provide(CountingKeys),
  Layer.provideMerge(MemoryAccessStores.layer),
  Layer.provideMerge(Access.Secrets.layer(Redacted.make("pepper"))),
  Layer.provideMerge(Ids.Ids.layer)
)

const code = (e: Either.Either<unknown, { readonly _tag: string }>) =>
  Either.isLeft(e) ? ("code" in e.left ? e.left.code : e.left._tag) : "ok"

it.effect("every request re-reads its key; a revocation anywhere refuses the very next request", () =>
  Effect.gen(function* () {
    yield* TestClock.setTime(T0)
    const access = yield* Access.Access
    const store = yield* ApiKeyStore
    const partner = yield* access.createPartner("Revoke LLC")
    const a = yield* access.issueKey(partner.id, {})
    const b = yield* access.issueKey(partner.id, {})
    lookups.n = 0
    for (let i = 0; i < 100; i++) yield* access.authenticateKey(a.raw)
    expect(lookups.n).toBe(100)

    // Revoked through this instance: refused on the next request.
    expect(yield* access.revokeKey(partner.id, a.view.id)).toBe(true)
    expect(code(yield* Effect.either(access.authenticateKey(a.raw)))).toBe("API_KEY_INVALID")

    // Revoked by another instance (straight in the shared store): refused on the next request too.
    expect(code(yield* Effect.either(access.authenticateKey(b.raw)))).toBe("ok")
    yield* store.revoke(partner.id, b.view.id, null, T0)
    expect(code(yield* Effect.either(access.authenticateKey(b.raw)))).toBe("API_KEY_INVALID")
  }).pipe(Effect.provide(Env))
)

it.effect("a key issued by another instance works at once", () =>
  Effect.gen(function* () {
    yield* TestClock.setTime(T0)
    const access = yield* Access.Access
    const partner = yield* access.createPartner("Fresh LLC")
    const raw = `svc_live_${"a".repeat(64)}`
    expect(code(yield* Effect.either(access.authenticateKey(raw)))).toBe("API_KEY_INVALID")
    lookups.n = 0
    expect(code(yield* Effect.either(access.authenticateKey(raw)))).toBe("API_KEY_INVALID")
    expect(lookups.n).toBe(1)
    expect(partner.name).toBe("Fresh LLC")
  }).pipe(Effect.provide(Env))
)

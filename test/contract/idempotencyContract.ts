/**
 * Contract suite of the idempotency store, run on every engine through `runOnce`: a key runs once
 * and is replayed, refused for another request, scoped, freed by an outcome that is not kept,
 * held while its transaction runs, and swept in batches. On SQL the engine's stores join the
 * transaction: a write of an outcome that is not kept is rolled back with it.
 */
import { Access, Ids } from "@frank/core"
import { Idempotency } from "@frank/core/http"
import { expect, layer } from "@effect/vitest"
import { Deferred, Effect, Either, Exit, Fiber, Layer, Redacted, Ref, TestClock } from "effect"
import type { ApiKeyStore, PartnerStore, SessionStore } from "@frank/core/stores"

const T0 = Date.UTC(2026, 10, 1, 12, 0, 0)
const HOUR = 3_600_000

export interface IdempotencyEngine {
  /** The engine's stores roll back with the transaction (SQL; memory stores have no transactions). */
  readonly transactional: boolean
  /** Two transactions may be open at once (not PGlite: its one connection serialises them). */
  readonly concurrentTransactions: boolean
}

const answer = (status: number, body: string): Idempotency.StoredAnswer => ({
  status,
  body,
  contentType: "application/json"
})
const keep = (exit: Exit.Exit<string, unknown>) => (Exit.isSuccess(exit) ? answer(201, exit.value) : undefined)

export const idempotencyContract = (
  engine: string,
  options: IdempotencyEngine,
  stores: Layer.Layer<Idempotency.IdempotencyStore | PartnerStore | ApiKeyStore | SessionStore, unknown>
) => {
  const Env = Access.Access.layer.pipe(
    Layer.provideMerge(stores),
    Layer.provideMerge(Access.Secrets.layer(Redacted.make("test-pepper"))),
    Layer.provideMerge(Ids.Ids.layer)
  )
  const request = (key: string, fingerprint = "f1", scope = "partner:p1"): Idempotency.IdempotentRequest => ({
    scope,
    key,
    fingerprint
  })

  layer(Env, { timeout: 120_000 })(`idempotency contract on ${engine}`, (it) => {
    it.effect("runs a key once and replays its answer", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const runs = yield* Ref.make(0)
        const op = Effect.as(
          Ref.update(runs, (n) => n + 1),
          "first"
        )
        const first = yield* Idempotency.runOnce(request(`once-${engine}`), op, keep)
        const second = yield* Idempotency.runOnce(request(`once-${engine}`), op, keep)
        expect(first._tag).toBe("Ran")
        expect(second).toEqual({ _tag: "Replayed", answer: answer(201, "first") })
        expect(yield* Ref.get(runs)).toBe(1)
      })
    )

    it.effect("refuses the key for another request and keeps scopes apart", () =>
      Effect.gen(function* () {
        const key = `mismatch-${engine}`
        yield* Idempotency.runOnce(request(key), Effect.succeed("a"), keep)
        const other = yield* Effect.either(Idempotency.runOnce(request(key, "f2"), Effect.succeed("b"), keep))
        expect(Either.isLeft(other) && other.left._tag).toBe("IdempotencyKeyMismatch")
        expect(Either.isLeft(other) && "code" in other.left && other.left.code).toBe("IDEMPOTENCY_KEY_REUSED")
        const elsewhere = yield* Idempotency.runOnce(request(key, "f2", "partner:p2"), Effect.succeed("c"), keep)
        expect(elsewhere._tag).toBe("Ran")
      })
    )

    it.effect("keeps no answer for an outcome that is not kept: the key stays free", () =>
      Effect.gen(function* () {
        const key = `free-${engine}`
        const failed = yield* Idempotency.runOnce(request(key), Effect.fail("nope"), keep)
        expect(failed._tag === "Ran" && Exit.isFailure(failed.exit)).toBe(true)
        const ran = yield* Idempotency.runOnce(request(key), Effect.succeed("later"), keep)
        expect(ran._tag).toBe("Ran")
      })
    )

    it.effect(
      options.transactional
        ? "rolls back the engine's writes of an outcome that is not kept"
        : "runs the engine's writes (memory stores have no rollback)",
      () =>
        Effect.gen(function* () {
          const access = yield* Access.Access
          const created = yield* Ref.make<string | undefined>(undefined)
          const op = Effect.flatMap(access.createPartner("Rolled back"), (p) =>
            Effect.zipRight(Ref.set(created, p.id), Effect.fail("refused after the write"))
          )
          yield* Idempotency.runOnce(request(`rollback-${engine}`), op, keep)
          const id = (yield* Ref.get(created))!
          const found = yield* Effect.either(access.getPartner(id as never))
          expect(Either.isLeft(found)).toBe(options.transactional)
        })
    )

    if (options.concurrentTransactions)
      it.effect("answers in progress while the first request with the key runs", () =>
        Effect.gen(function* () {
          const key = `busy-${engine}`
          const started = yield* Deferred.make<void>()
          const release = yield* Deferred.make<void>()
          const slow = Effect.zipRight(
            Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(release)),
            Effect.succeed("slow")
          )
          const first = yield* Effect.fork(Idempotency.runOnce(request(key), slow, keep))
          yield* Deferred.await(started)
          const second = yield* Effect.either(Idempotency.runOnce(request(key), Effect.succeed("x"), keep))
          expect(Either.isLeft(second) && second.left._tag).toBe("IdempotencyRequestInProgress")
          yield* Deferred.succeed(release, undefined)
          expect((yield* Fiber.join(first))._tag).toBe("Ran")
          const third = yield* Idempotency.runOnce(request(key), Effect.succeed("x"), keep)
          expect(third).toEqual({ _tag: "Replayed", answer: answer(201, "slow") })
        })
      )

    it.effect("sweeps answers older than 24 hours in batches, newer ones kept", () =>
      Effect.gen(function* () {
        const store = yield* Idempotency.IdempotencyStore
        const base = T0 + 1000 * HOUR
        yield* TestClock.setTime(base)
        for (let i = 0; i < 5; i++)
          yield* Idempotency.runOnce(request(`old-${engine}-${i}`, "f", "partner:sweep"), Effect.succeed("o"), keep)
        yield* TestClock.setTime(base + 20 * HOUR)
        yield* Idempotency.runOnce(request(`new-${engine}`, "f", "partner:sweep"), Effect.succeed("n"), keep)
        yield* TestClock.setTime(base + 25 * HOUR)
        // Older rows of the other cases (T0) go too.
        const deleted = yield* Idempotency.sweepExpiredAnswers({ batch: 2 })
        expect(deleted).toBeGreaterThanOrEqual(5)
        expect(yield* store.deleteExpired(base + 25 * HOUR - Idempotency.IDEMPOTENCY_RETENTION_MS, 10)).toBe(0)
        const kept = yield* Idempotency.runOnce(
          request(`new-${engine}`, "f", "partner:sweep"),
          Effect.succeed("x"),
          keep
        )
        expect(kept._tag).toBe("Replayed")
        const gone = yield* Idempotency.runOnce(
          request(`old-${engine}-0`, "f", "partner:sweep"),
          Effect.succeed("x"),
          keep
        )
        expect(gone._tag).toBe("Ran")
      })
    )
  })
}

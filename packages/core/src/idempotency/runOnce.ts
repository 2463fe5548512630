/**
 * Runs an operation at most once per idempotency key, outside HTTP (the HTTP layer splits the same
 * steps around authentication, see http/IdempotencyLive.ts): claim the key, run, store the answer
 * in the same transaction. An outcome that is not stored rolls the transaction back, so a failed
 * attempt leaves nothing behind and the key stays free.
 */
import { Clock, Effect, type Exit } from "effect"
import type { StoreError } from "../StoreError.js"
import { claimVerdict } from "./claimRule.js"
import type { IdempotencyKeyMismatch, IdempotencyRequestInProgress } from "./IdempotencyError.js"
import { type IdempotentRequest, IdempotencyStore, type StoredAnswer } from "./IdempotencyStore.js"

/** The outcome of `runOnce`: the operation ran (its exit), or a stored answer was replayed. */
export type Once<A, E> =
  | { readonly _tag: "Ran"; readonly exit: Exit.Exit<A, E> }
  | { readonly _tag: "Replayed"; readonly answer: StoredAnswer }

class NotStored<A, E> {
  readonly _tag = "NotStored"
  constructor(readonly exit: Exit.Exit<A, E>) {}
}

/**
 * Claims `request`'s key, runs `operation` when the key is fresh and stores `answerOf(exit)` in
 * the same transaction; `answerOf` answers `undefined` for outcomes that are not kept, which are
 * rolled back.
 */
export const runOnce = <A, E, R>(
  request: IdempotentRequest,
  operation: Effect.Effect<A, E, R>,
  answerOf: (exit: Exit.Exit<A, E>) => StoredAnswer | undefined
): Effect.Effect<
  Once<A, E>,
  StoreError | IdempotencyKeyMismatch | IdempotencyRequestInProgress,
  R | IdempotencyStore
> =>
  Effect.flatMap(IdempotencyStore, (store) => {
    const attempt = Effect.gen(function* () {
      const verdict = claimVerdict(yield* store.claim(request.scope, request.key), request.key, request.fingerprint)
      if (verdict._tag === "Refuse") return yield* Effect.fail(verdict.error)
      if (verdict._tag === "Replay") return { _tag: "Replayed", answer: verdict.answer } as Once<A, E>
      const exit = yield* Effect.exit(operation)
      const answer = answerOf(exit)
      if (answer === undefined) return yield* Effect.fail(new NotStored(exit))
      yield* store.save(request, answer, yield* Clock.currentTimeMillis)
      return { _tag: "Ran", exit } as Once<A, E>
    })
    return Effect.catchIf(
      store.transaction(attempt),
      (e): e is NotStored<A, E> => e instanceof NotStored,
      (e) => Effect.succeed<Once<A, E>>({ _tag: "Ran", exit: e.exit })
    )
  })

/**
 * Port: where the first answer to each idempotency key is kept. A key is claimed and its answer
 * saved inside `transaction`, which the engine's other stores join (on SQL, one database
 * transaction), so an operation's writes and its stored answer commit together or not at all.
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../StoreError.js"

/** The answer stored for a key: replayed as is to a retry. */
export interface StoredAnswer {
  readonly status: number
  readonly body: string
  readonly contentType: string
}

/** A key with what it was first used for. */
export interface IdempotentRequest {
  /** Whose key it is: `partner:<id>`, or `admin:<token digest>` for the admin API. */
  readonly scope: string
  readonly key: string
  /** `requestFingerprint` of the method, path and body (fingerprint.ts). */
  readonly fingerprint: string
}

/** What a claim finds: a free key (now held by this transaction), a stored answer, or a key in use. */
export type Claim =
  | { readonly _tag: "Fresh" }
  | { readonly _tag: "Stored"; readonly fingerprint: string; readonly answer: StoredAnswer }
  | { readonly _tag: "InProgress" }

/** What an idempotency store offers (see the port's comment). */
export interface IdempotencyStoreShape {
  /**
   * Runs `effect` in one transaction that the engine's stores join; it commits when `effect`
   * succeeds and rolls back when it fails. Claims taken inside are released at its end.
   */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreError, R>
  /**
   * Inside `transaction`: holds the key for this transaction without waiting (`InProgress` when
   * another transaction holds it) and reads its stored answer.
   */
  readonly claim: (scope: string, key: string) => Effect.Effect<Claim, StoreError>
  /** Inside `transaction`, after a `Fresh` claim: stores the answer (`at`: epoch ms, for retention). */
  readonly save: (request: IdempotentRequest, answer: StoredAnswer, at: number) => Effect.Effect<void, StoreError>
  /** Deletes up to `limit` answers stored before `before` (epoch ms); answers how many. */
  readonly deleteExpired: (before: number, limit: number) => Effect.Effect<number, StoreError>
}

/** Port: the idempotency store. */
export class IdempotencyStore extends Context.Tag("@frank/core/IdempotencyStore")<
  IdempotencyStore,
  IdempotencyStoreShape
>() {}

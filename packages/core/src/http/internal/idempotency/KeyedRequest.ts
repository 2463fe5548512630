/**
 * The state of one change request that carries an `Idempotency-Key`, shared between the API-level
 * middleware that opens its transaction (IdempotencyLive.ts) and the group middleware that claims
 * the key once authentication has named its owner (IdempotencyClaim.ts).
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Context } from "effect"
import type { IdempotencyStoreShape, IdempotentRequest } from "../../../idempotency/IdempotencyStore.js"

export class KeyedRequestState {
  /** Set by the claim when the key was free: the request runs and its answer may be stored. */
  claimed: IdempotentRequest | undefined = undefined
  /** Set by the claim when the request must not run: the replayed answer or the refusal. */
  shortcut: HttpServerResponse.HttpServerResponse | undefined = undefined
  constructor(
    readonly key: string,
    readonly store: IdempotencyStoreShape
  ) {}
}

/** The current request's key state (only on change requests with a valid key). */
export class KeyedRequest extends Context.Tag("@frank/core/http/KeyedRequest")<KeyedRequest, KeyedRequestState>() {}

/** What the claim fails with to stop the handler; the API-level middleware answers `shortcut`. */
export class IdempotencyShortcut {
  readonly _tag = "IdempotencyShortcut"
}

/**
 * Storage port of API keys. Issuing runs a pure rule under a per-partner lock, which is what keeps
 * the 20-active-keys quota exact when keys are issued concurrently.
 */
import type { KeyId, PartnerId } from "../EntityIds.js"
import { Context, type Effect, type Either } from "effect"
import type { StoreError } from "../StoreError.js"
import type { ApiKeyRecord } from "./ApiKey.js"

/** The operations of the API key store port. */
export interface ApiKeyStoreShape {
  /** Runs `decide` over the partner's keys under an exclusive per-partner lock and inserts its key. */
  readonly issue: <E>(
    partnerId: PartnerId,
    decide: (existing: ReadonlyArray<ApiKeyRecord>) => Either.Either<ApiKeyRecord, E>
  ) => Effect.Effect<ApiKeyRecord, E | StoreError>
  /** Inserts a key without quota rules (legacy keys registered by the operator). */
  readonly insert: (key: ApiKeyRecord) => Effect.Effect<void, StoreError>
  /** Replaces one of the partner's keys with what `decide` returns; undefined when no such key. */
  readonly update: <E>(
    partnerId: PartnerId,
    id: KeyId,
    decide: (key: ApiKeyRecord) => Either.Either<ApiKeyRecord, E>
  ) => Effect.Effect<ApiKeyRecord | undefined, E | StoreError>
  /** Sets revokedAt/reason when not yet revoked; true when the partner has such a key. */
  readonly revoke: (
    partnerId: PartnerId,
    id: KeyId,
    reason: string | null,
    now: number
  ) => Effect.Effect<boolean, StoreError>
  /** The partner's cabinet keys (no legacy keys), newest first. */
  readonly list: (partnerId: PartnerId) => Effect.Effect<ReadonlyArray<ApiKeyRecord>, StoreError>
  /** Lookup by keyed hash across partners: the hash identifies the key. */
  readonly findByHash: (keyHash: string) => Effect.Effect<ApiKeyRecord | undefined, StoreError>
  /** Records use; writes at most once per LAST_USED_RESOLUTION_MS. */
  readonly touch: (partnerId: PartnerId, id: string, now: number) => Effect.Effect<void, StoreError>
}

/** Port: where API keys are kept (SQL in adapters, memory in tests). */
export class ApiKeyStore extends Context.Tag("@frank/core/ApiKeyStore")<ApiKeyStore, ApiKeyStoreShape>() {}

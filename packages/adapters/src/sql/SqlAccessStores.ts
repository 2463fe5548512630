/**
 * Partners, API keys and sessions on SQL. Issuing a key takes a transaction-scoped advisory lock
 * on the partner, so concurrent issues are serialized and the active-key quota stays exact.
 */
import { SqlClient, type SqlError } from "@effect/sql"
import {
  type ApiKeyRecord,
  ApiKeyStore,
  type ApiKeyStoreShape,
  LAST_USED_RESOLUTION_MS,
  type Partner,
  PartnerStore,
  type Scope,
  type SessionRecord,
  SessionStore,
  StoreError
} from "@frank/core"
import { Effect, Either, Layer } from "effect"

const storeError = (what: string) => (cause: SqlError.SqlError) =>
  new StoreError({ message: `access store: ${what} failed`, cause })

interface KeyRow extends Omit<ApiKeyRecord, "scopes"> {
  readonly scopes: string
}

const fromRow = (r: KeyRow): ApiKeyRecord => ({
  ...r,
  scopes: r.scopes.length === 0 ? [] : (r.scopes.split(",") as Scope[])
})
const toRow = (k: ApiKeyRecord) => ({ ...k, scopes: k.scopes.join(",") })

export const SqlPartnerStore = Layer.effect(
  PartnerStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      create: (p: Partner) =>
        sql`INSERT INTO partners ${sql.insert({ ...p })}`.pipe(
          Effect.asVoid,
          Effect.mapError(storeError("createPartner"))
        ),
      get: (id: string) =>
        sql<Partner>`SELECT id, name, created_at FROM partners WHERE id = ${id}`.pipe(
          Effect.map((rows) => rows[0]),
          Effect.mapError(storeError("getPartner"))
        )
    }
  })
)

export const SqlSessionStore = Layer.effect(
  SessionStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      create: (s: SessionRecord) =>
        sql`INSERT INTO sessions ${sql.insert({ ...s })}`.pipe(
          Effect.asVoid,
          Effect.mapError(storeError("createSession"))
        ),
      findByHash: (h: string) =>
        sql<SessionRecord>`SELECT id, partner_id, token_hash, created_at, expires_at FROM sessions WHERE token_hash = ${h}`.pipe(
          Effect.map((rows) => rows[0]),
          Effect.mapError(storeError("findSession"))
        )
    }
  })
)

export const makeSqlApiKeyStore = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql`partner_id, id, kind, key_hash, prefix, label, access, scopes, created_at, last_used_at, expires_at, revoked_at, revoke_reason`

  const store: ApiKeyStoreShape = {
    issue: (partnerId, decide) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`api_keys:${partnerId}`}))`
            const existing =
              (yield* sql<KeyRow>`SELECT ${columns} FROM api_keys WHERE partner_id = ${partnerId} AND kind = 'live'`).map(
                fromRow
              )
            const decided = decide(existing)
            if (Either.isRight(decided)) yield* sql`INSERT INTO api_keys ${sql.insert(toRow(decided.right))}`
            return decided
          })
        )
        .pipe(
          Effect.mapError(storeError("issueKey")),
          Effect.flatMap((d) => (Either.isLeft(d) ? Effect.fail(d.left) : Effect.succeed(d.right)))
        ),
    insert: (key) =>
      sql`INSERT INTO api_keys ${sql.insert(toRow(key))}`.pipe(Effect.asVoid, Effect.mapError(storeError("insertKey"))),
    update: (partnerId, id, decide) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const rows =
              yield* sql<KeyRow>`SELECT ${columns} FROM api_keys WHERE partner_id = ${partnerId} AND id = ${id} AND kind = 'live' FOR UPDATE`
            const row = rows[0]
            if (row === undefined) return Either.right(undefined)
            const decided = decide(fromRow(row))
            if (Either.isRight(decided))
              yield* sql`UPDATE api_keys SET label = ${decided.right.label}, access = ${decided.right.access}, scopes = ${decided.right.scopes.join(",")}
                WHERE partner_id = ${partnerId} AND id = ${decided.right.id}`
            return decided
          })
        )
        .pipe(
          Effect.mapError(storeError("updateKey")),
          Effect.flatMap((d) => (Either.isLeft(d) ? Effect.fail(d.left) : Effect.succeed(d.right)))
        ),
    revoke: (partnerId, id, reason, now) =>
      Effect.gen(function* () {
        yield* sql`UPDATE api_keys SET revoked_at = ${now}, revoke_reason = ${reason}
          WHERE partner_id = ${partnerId} AND id = ${id} AND kind = 'live' AND revoked_at IS NULL`
        const found = yield* sql<{
          id: string
        }>`SELECT id FROM api_keys WHERE partner_id = ${partnerId} AND id = ${id} AND kind = 'live'`
        return found.length > 0
      }).pipe(Effect.mapError(storeError("revokeKey"))),
    list: (partnerId) =>
      sql<KeyRow>`SELECT ${columns} FROM api_keys WHERE partner_id = ${partnerId} AND kind = 'live' ORDER BY created_at DESC, id DESC`.pipe(
        Effect.map((rows) => rows.map(fromRow)),
        Effect.mapError(storeError("listKeys"))
      ),
    findByHash: (hash) =>
      sql<KeyRow>`SELECT ${columns} FROM api_keys WHERE key_hash = ${hash}`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? undefined : fromRow(rows[0]))),
        Effect.mapError(storeError("findKey"))
      ),
    touch: (partnerId, id, now) =>
      sql`UPDATE api_keys SET last_used_at = ${now} WHERE partner_id = ${partnerId} AND id = ${id}
        AND (last_used_at IS NULL OR last_used_at <= ${now - LAST_USED_RESOLUTION_MS})`.pipe(
        Effect.asVoid,
        Effect.mapError(storeError("touchKey"))
      )
  }
  return store
})

export const SqlApiKeyStore = Layer.effect(ApiKeyStore, makeSqlApiKeyStore)

export const SqlAccessStores = Layer.mergeAll(SqlPartnerStore, SqlSessionStore, SqlApiKeyStore)

/**
 * Partners, API keys and sessions on SQL. Issuing a key takes a transaction-scoped advisory lock
 * on the partner, so concurrent issues are serialized and the active-key quota stays exact.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Access, Errors } from "@frank/core"
import { Effect, Either, Layer } from "effect"
import { ApiKeyStore, type ApiKeyStoreShape, PartnerStore, SessionStore } from "@frank/core/stores"

const storeError = Errors.storeErrorFor("access store")

interface KeyRow extends Omit<Access.ApiKeyRecord, "scopes"> {
  readonly scopes: string
}

const fromRow = (r: KeyRow): Access.ApiKeyRecord => ({
  ...r,
  scopes: r.scopes.length === 0 ? [] : (r.scopes.split(",") as Access.Scope[])
})
const toRow = (k: Access.ApiKeyRecord) => ({ ...k, scopes: k.scopes.join(",") })

/** `PartnerStore` on SQL. */
export const partnerStoreLayer: Layer.Layer<PartnerStore, never, SqlClient.SqlClient> = Layer.effect(
  PartnerStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      create: (p: Access.Partner) =>
        sql`INSERT INTO partners ${sql.insert({ ...p })}`.pipe(
          Effect.asVoid,
          Effect.mapError(storeError("createPartner"))
        ),
      get: (id: string) =>
        sql<Access.Partner>`SELECT id, name, created_at FROM partners WHERE id = ${id}`.pipe(
          Effect.map((rows) => rows[0]),
          Effect.mapError(storeError("getPartner"))
        )
    }
  })
)

/** One conditional UPDATE marks the link used, so two concurrent clicks open one session. */
const redeemSignIn = (sql: SqlClient.SqlClient, h: string, now: number) =>
  Effect.gen(function* () {
    const used = yield* sql<Access.SignInRecord>`
      UPDATE cabinet_sign_ins SET used_at = ${now}
      WHERE token_hash = ${h} AND used_at IS NULL AND expires_at > ${now}
      RETURNING partner_id, token_hash, session_ttl_seconds, created_at, expires_at`
    const record = used[0]
    if (record !== undefined)
      return { _tag: "Redeemed", record: { ...record, sessionTtlSeconds: Number(record.sessionTtlSeconds) } } as const
    const rows = yield* sql<{ usedAt: string | null }>`SELECT used_at FROM cabinet_sign_ins WHERE token_hash = ${h}`
    const row = rows[0]
    const reason = row === undefined ? "unknown" : row.usedAt !== null ? "used" : "expired"
    return { _tag: "Refused", reason } satisfies Access.SignInRedemption
  }).pipe(Effect.mapError(storeError("redeemSignIn")))

/** `SessionStore` on SQL. */
export const sessionStoreLayer: Layer.Layer<SessionStore, never, SqlClient.SqlClient> = Layer.effect(
  SessionStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      create: (s: Access.SessionRecord) =>
        sql`INSERT INTO sessions ${sql.insert({ ...s })}`.pipe(
          Effect.asVoid,
          Effect.mapError(storeError("createSession"))
        ),
      findByHash: (h: string) =>
        sql<Access.SessionRecord>`SELECT id, partner_id, token_hash, created_at, expires_at FROM sessions WHERE token_hash = ${h}`.pipe(
          Effect.map((rows) => rows[0]),
          Effect.mapError(storeError("findSession"))
        ),
      remove: (h: string) =>
        sql`DELETE FROM sessions WHERE token_hash = ${h}`.pipe(
          Effect.asVoid,
          Effect.mapError(storeError("endSession"))
        ),
      createSignIn: (r: Access.SignInRecord) =>
        sql`INSERT INTO cabinet_sign_ins ${sql.insert({ ...r })}`.pipe(
          Effect.asVoid,
          Effect.mapError(storeError("createSignIn"))
        ),
      redeemSignIn: (h: string, now: number) => redeemSignIn(sql, h, now)
    }
  })
)

export const makeApiKeyStore = Effect.gen(function* () {
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
        AND (last_used_at IS NULL OR last_used_at <= ${now - Access.LAST_USED_RESOLUTION_MS})`.pipe(
        Effect.asVoid,
        Effect.mapError(storeError("touchKey"))
      )
  }
  return store
})

/** `ApiKeyStore` on SQL. */
export const apiKeyStoreLayer: Layer.Layer<ApiKeyStore, never, SqlClient.SqlClient> = Layer.effect(
  ApiKeyStore,
  makeApiKeyStore
)

/** The three access stores. */
export const layer = Layer.mergeAll(partnerStoreLayer, sessionStoreLayer, apiKeyStoreLayer)

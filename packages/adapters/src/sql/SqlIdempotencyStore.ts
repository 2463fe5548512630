/**
 * The idempotency store on SQL (PostgreSQL, PGlite): the table `idempotency_keys`. `transaction`
 * is the client's own, so the engine's stores, which open theirs with the same client, join it
 * (their transactions become savepoints) and the stored answer commits with the change. A key is
 * held by a transaction-scoped advisory lock taken without waiting: a second request with the
 * key while the first runs is told so at once, and the lock goes with the first's commit.
 */
import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Errors } from "@frank/core"
import { Idempotency } from "@frank/core/http"
import { Effect, Layer } from "effect"

interface AnswerRow {
  readonly fingerprint: string
  readonly status: number
  readonly body: string
  readonly contentType: string
}

/** The store over `sql`. */
export const make = (sql: SqlClient.SqlClient): Idempotency.IdempotencyStoreShape => {
  const failed = Errors.storeErrorFor("idempotency store")
  return {
    transaction: (effect) =>
      Effect.catchIf(
        sql.withTransaction(effect),
        (e): e is SqlError => e instanceof SqlError,
        (e) => Effect.fail(failed("transaction")(e))
      ),
    claim: (scope, key) =>
      Effect.gen(function* () {
        // The lock first, then the read: the read's snapshot then sees an answer committed by the
        // transaction that held the lock before.
        const [lock] = yield* sql<{ locked: boolean }>`
          SELECT pg_try_advisory_xact_lock(hashtextextended(${scope} || chr(10) || ${key}, 0)) AS locked`
        if (lock?.locked !== true) return { _tag: "InProgress" } as const
        const [row] = yield* sql<AnswerRow>`
          SELECT fingerprint, status, body, content_type FROM idempotency_keys
          WHERE scope = ${scope} AND key = ${key}`
        if (row === undefined) return { _tag: "Fresh" } as const
        return {
          _tag: "Stored",
          fingerprint: row.fingerprint,
          answer: { status: Number(row.status), body: row.body, contentType: row.contentType }
        } as const
      }).pipe(Effect.mapError(failed("claim"))),
    save: (request, answer, at) =>
      sql`
        INSERT INTO idempotency_keys (scope, key, fingerprint, status, body, content_type, created_at)
        VALUES (${request.scope}, ${request.key}, ${request.fingerprint}, ${answer.status}, ${answer.body},
                ${answer.contentType}, ${at})`.pipe(Effect.asVoid, Effect.mapError(failed("save"))),
    deleteExpired: (before, limit) =>
      sql<{ deleted: number | string }>`
        WITH gone AS (
          DELETE FROM idempotency_keys WHERE (scope, key) IN (
            SELECT scope, key FROM idempotency_keys WHERE created_at < ${before}
            ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING 1)
        SELECT count(*) AS deleted FROM gone`.pipe(
        Effect.map((rows) => Number(rows[0]?.deleted ?? 0)),
        Effect.mapError(failed("deleteExpired"))
      )
  }
}

/** `Idempotency.IdempotencyStore` on the `SqlClient` in context. */
export const layer: Layer.Layer<Idempotency.IdempotencyStore, never, SqlClient.SqlClient> = Layer.effect(
  Idempotency.IdempotencyStore,
  Effect.map(SqlClient.SqlClient, make)
)

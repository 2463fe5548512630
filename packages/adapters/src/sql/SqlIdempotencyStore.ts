/**
 * The idempotency store on SQL (PostgreSQL, PGlite): the table `idempotency_keys`. `transaction`
 * is the client's own, so the engine's stores, which open theirs with the same client, join it
 * (their transactions become savepoints) and the stored answer commits with the change. A key is
 * held by a transaction-scoped advisory lock taken without waiting (`idempotency_claim`, which
 * also reads the stored answer): a second request with the key while the first runs is told so
 * at once, and the lock goes with the first's commit.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Errors } from "@frank/core"
import { Idempotency } from "@frank/core/http"
import { Effect, Layer } from "effect"

interface ClaimRow {
  readonly locked: boolean
  readonly fingerprint: string | null
  readonly status: number | null
  readonly body: string | null
  readonly contentType: string | null
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
      // One round trip: the lock, then the read after it (migration 0026 says why a function).
      sql<ClaimRow>`SELECT locked, fingerprint, status, body, content_type FROM idempotency_claim(${scope}, ${key})`.pipe(
        Effect.map(([row]): Idempotency.Claim => {
          if (row?.locked !== true) return { _tag: "InProgress" }
          if (row.fingerprint === null) return { _tag: "Fresh" }
          return {
            _tag: "Stored",
            fingerprint: row.fingerprint,
            answer: { status: Number(row.status), body: row.body ?? "", contentType: row.contentType ?? "" }
          }
        }),
        Effect.mapError(failed("claim"))
      ),
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

/**
 * The audit log on SQL (PostgreSQL and PGlite). `append` is one INSERT on whatever connection the
 * fiber holds, so inside a transaction it is part of it; `atomically` is `withTransaction`
 * (a savepoint inside an open one). Pages read the `(partner_id, at DESC, id DESC)` index from the
 * cursor on; retention deletes the oldest rows of any partner in bounded statements, skipping rows
 * another sweeper holds.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { type Audit, Errors, type Ids } from "@frank/core"
import { Effect, Layer } from "effect"
import { AuditStore, type AuditStoreShape } from "@frank/core/stores"

const storeError = Errors.storeErrorFor("audit store")

interface AuditRow {
  readonly partnerId: Ids.PartnerId
  readonly id: string
  readonly at: number
  readonly actorType: Audit.AuditActorType
  readonly actorId: string | null
  readonly actorLabel: string | null
  readonly action: string
  readonly targetType: string
  readonly targetId: string
  readonly requestId: string | null
  readonly ip: string | null
  readonly idempotencyKey: string | null
  readonly changes: ReadonlyArray<string>
}

const fromRow = (r: AuditRow): Audit.AuditRecord => ({
  id: r.id,
  partnerId: r.partnerId,
  at: r.at,
  actor: { type: r.actorType, id: r.actorId, label: r.actorLabel },
  action: r.action,
  target: { type: r.targetType, id: r.targetId },
  requestId: r.requestId,
  ip: r.ip,
  idempotencyKey: r.idempotencyKey,
  changes: r.changes
})

const COLUMNS =
  "partner_id, id, at, actor_type, actor_id, actor_label, action, target_type, target_id, request_id, ip, idempotency_key, changes"

/** The audit store over the fiber's SQL client. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(COLUMNS)
  const store: AuditStoreShape = {
    append: (r) =>
      sql`INSERT INTO audit_log (${columns}) VALUES (${r.partnerId}, ${r.id}::uuid, ${r.at}, ${r.actor.type},
        ${r.actor.id}, ${r.actor.label}, ${r.action}, ${r.target.type}, ${r.target.id}, ${r.requestId}, ${r.ip},
        ${r.idempotencyKey}, ${[...r.changes]}::text[])`.pipe(Effect.asVoid, Effect.mapError(storeError("append"))),
    atomically: (effect) =>
      Effect.catchIf(
        sql.withTransaction(effect),
        (e): e is SqlError => e instanceof SqlError,
        (e) => Effect.fail(storeError("transaction")(e))
      ),
    list: (partnerId, q) =>
      sql<AuditRow>`SELECT ${columns} FROM audit_log WHERE partner_id = ${partnerId}
        ${q.action === undefined ? sql`` : sql`AND action = ${q.action}`}
        ${q.from === undefined ? sql`` : sql`AND at >= ${q.from}`}
        ${q.to === undefined ? sql`` : sql`AND at < ${q.to}`}
        ${q.after === undefined ? sql`` : sql`AND (at, id) < (${q.after.at}, ${q.after.id}::uuid)`}
        ORDER BY at DESC, id DESC LIMIT ${q.limit}`.pipe(
        Effect.map((rows) => rows.map(fromRow)),
        Effect.mapError(storeError("list"))
      ),
    deleteExpired: (before, limit) =>
      sql<{ n: number }>`WITH gone AS (
          DELETE FROM audit_log WHERE (partner_id, id) IN (
            SELECT partner_id, id FROM audit_log WHERE at < ${before} ORDER BY at LIMIT ${limit} FOR UPDATE SKIP LOCKED
          ) RETURNING 1
        ) SELECT count(*) AS n FROM gone`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0),
        Effect.mapError(storeError("deleteExpired"))
      )
  }
  return store
})

/** `AuditStore` on SQL. */
export const layer: Layer.Layer<AuditStore, never, SqlClient.SqlClient> = Layer.effect(AuditStore, make)

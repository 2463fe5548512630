/**
 * The task store on SQL (PostgreSQL and PGlite).
 *
 * - `create` inserts with `ON CONFLICT (partner_id, idempotency_key) DO NOTHING`: a concurrent
 *   retry with the same key waits on the unique index until the first launch commits (then finds
 *   its task) or rolls back (then launches itself). The caller's reservation runs after the insert
 *   in the same transaction, so a refused reservation removes the task with it.
 * - `update` locks the task row (`FOR UPDATE`), so reports of one task serialize and each sees the
 *   state the previous one left; the settlement runs in the same transaction (the ledger store
 *   and the outbox join it).
 * Lock order is always task row, then the partner's ledger account, so the two never deadlock.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Errors, type Ids, type Pricing, type Tasks } from "@frank/core"
import { Effect, Layer } from "effect"
import { sqlFailures } from "./sqlFailures.js"
import { TaskStore, type TaskStoreShape } from "@frank/core/stores"

interface TaskRow {
  readonly partnerId: Ids.PartnerId
  readonly id: Ids.TaskId
  readonly status: Tasks.TaskStatus
  readonly modelId: string
  readonly family: Pricing.Family
  readonly operation: string
  readonly mode: string
  readonly resolution: string | null
  readonly quality: Pricing.Quality | null
  readonly request: string
  readonly inputs: string
  readonly reservedMinor: number
  readonly costMinor: number | null
  readonly idempotencyKey: string | null
  readonly resultUrl: string | null
  readonly resultMimeType: string | null
  readonly resultSizeBytes: number | null
  readonly resultText: string | null
  readonly failureCode: string | null
  readonly failureMessage: string | null
  readonly createdAt: number
  readonly startedAt: number | null
  readonly finishedAt: number | null
  readonly expiresAt: number
  readonly lateReport: string | null
}

const TASK_COLUMNS = `partner_id, id, status, model_id, family, operation, mode, resolution, quality, request, inputs, reserved_minor,
  cost_minor, idempotency_key, result_url, result_mime_type, result_size_bytes, result_text, failure_code, failure_message,
  created_at, started_at, finished_at, expires_at, late_report`

const fromRow = (r: TaskRow): Tasks.Task => ({
  partnerId: r.partnerId,
  id: r.id,
  status: r.status,
  modelId: r.modelId,
  family: r.family,
  operation: r.operation,
  mode: r.mode,
  resolution: r.resolution,
  quality: r.quality,
  request: JSON.parse(r.request) as Pricing.EstimateRequest,
  inputs: JSON.parse(r.inputs) as ReadonlyArray<Tasks.TaskInput>,
  reservedMinor: r.reservedMinor,
  costMinor: r.costMinor,
  idempotencyKey: r.idempotencyKey,
  result:
    r.resultUrl === null || r.resultMimeType === null
      ? null
      : { url: r.resultUrl, mimeType: r.resultMimeType, sizeBytes: r.resultSizeBytes ?? 0, text: r.resultText },
  failure: r.failureCode === null ? null : { code: r.failureCode, message: r.failureMessage ?? "" },
  createdAt: r.createdAt,
  startedAt: r.startedAt,
  finishedAt: r.finishedAt,
  expiresAt: r.expiresAt,
  lateReport: r.lateReport === null ? null : (JSON.parse(r.lateReport) as Tasks.Task["lateReport"])
})

/** The columns a transition may change. */
const changeableColumns = (t: Tasks.Task) => ({
  status: t.status,
  costMinor: t.costMinor,
  resultUrl: t.result?.url ?? null,
  resultMimeType: t.result?.mimeType ?? null,
  resultSizeBytes: t.result?.sizeBytes ?? null,
  resultText: t.result?.text ?? null,
  failureCode: t.failure?.code ?? null,
  failureMessage: t.failure?.message ?? null,
  startedAt: t.startedAt,
  finishedAt: t.finishedAt,
  lateReport: t.lateReport === null ? null : JSON.stringify(t.lateReport)
})

const toRow = (t: Tasks.Task) => ({
  partnerId: t.partnerId,
  id: t.id,
  modelId: t.modelId,
  family: t.family,
  operation: t.operation,
  mode: t.mode,
  resolution: t.resolution,
  quality: t.quality,
  request: JSON.stringify(t.request),
  inputs: JSON.stringify(t.inputs),
  reservedMinor: t.reservedMinor,
  idempotencyKey: t.idempotencyKey,
  createdAt: t.createdAt,
  expiresAt: t.expiresAt,
  ...changeableColumns(t)
})

/** A uuid column compared with a string that is not a uuid would fail the query; such an id matches nothing. */

const storeError = Errors.storeErrorFor("task store")

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(TASK_COLUMNS)

  const selectOne = (partnerId: Ids.PartnerId, id: string, forUpdate: boolean) =>
    Effect.map(
      sql<TaskRow>`SELECT ${columns} FROM tasks WHERE partner_id = ${partnerId} AND id = ${id}::uuid${forUpdate ? sql` FOR UPDATE` : sql``}`,
      (rows) => (rows[0] === undefined ? undefined : fromRow(rows[0]))
    )

  const store: TaskStoreShape = {
    create: <E>(task: Tasks.Task, alongside: Effect.Effect<void, E | Errors.StoreError>) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const inserted = yield* sql<{ id: string }>`INSERT INTO tasks ${sql.insert(toRow(task))}
              ON CONFLICT (partner_id, idempotency_key) DO NOTHING RETURNING id`
            if (inserted.length === 0) {
              // Only the idempotency key can conflict (ids are fresh): the earlier launch is committed.
              const [earlier] = yield* sql<TaskRow>`SELECT ${columns} FROM tasks
                WHERE partner_id = ${task.partnerId} AND idempotency_key = ${task.idempotencyKey}`
              if (earlier === undefined)
                return yield* new Errors.StoreError({ message: "task store: create conflicted on a key no task holds" })
              return { task: fromRow(earlier), created: false }
            }
            yield* alongside
            return { task, created: true }
          })
        )
        .pipe(Effect.mapError(sqlFailures(storeError("create")))),

    get: (partnerId, id) => selectOne(partnerId, id, false).pipe(Effect.mapError(storeError("get"))),

    list: (partnerId, filter, offset, limit) =>
      Effect.gen(function* () {
        const byStatus = filter.status === undefined ? sql`` : sql` AND status = ${filter.status}`
        const rows = yield* sql<TaskRow>`SELECT ${columns} FROM tasks WHERE partner_id = ${partnerId}${byStatus}
          ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`
        const [count] = yield* sql<{
          n: number
        }>`SELECT count(*)::int AS n FROM tasks WHERE partner_id = ${partnerId}${byStatus}`
        return { items: rows.map(fromRow), total: count?.n ?? 0 }
      }).pipe(Effect.mapError(storeError("list"))),

    update: <E>(
      partnerId: Ids.PartnerId,
      id: Ids.TaskId,
      decide: (current: Tasks.Task) => Tasks.TaskChange | undefined,
      alongside: (change: Tasks.TaskChange, previous: Tasks.Task) => Effect.Effect<void, E | Errors.StoreError>
    ) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const current = yield* selectOne(partnerId, id, true)
            if (current === undefined) return undefined
            const change = decide(current)
            if (change === undefined) return { task: current, changed: false }
            yield* sql`UPDATE tasks SET ${sql.update(changeableColumns(change.task))} WHERE partner_id = ${partnerId} AND id = ${id}::uuid`
            if (change.content !== undefined)
              yield* sql`INSERT INTO task_results ${sql.insert({
                partnerId,
                taskId: change.task.id,
                mimeType: change.content.mimeType,
                content: change.content.bytes
              })}`
            yield* alongside(change, current)
            return { task: change.task, changed: true }
          })
        )
        .pipe(Effect.mapError(sqlFailures(storeError("update")))),

    content: (partnerId, id) =>
      sql<{ mimeType: string; content: Uint8Array }>`SELECT mime_type, content FROM task_results
            WHERE partner_id = ${partnerId} AND task_id = ${id}::uuid`.pipe(
        Effect.map(([row]): Tasks.TaskContent | undefined =>
          row === undefined ? undefined : { mimeType: row.mimeType, bytes: new Uint8Array(row.content) }
        ),
        Effect.mapError(storeError("content"))
      ),

    locate: (id) =>
      sql<TaskRow>`SELECT ${columns} FROM tasks WHERE id = ${id}::uuid LIMIT 1`.pipe(
        Effect.map(([row]) => (row === undefined ? undefined : fromRow(row))),
        Effect.mapError(storeError("locate"))
      ),

    unfinished: (limit) =>
      sql<TaskRow>`SELECT ${columns} FROM tasks WHERE status IN ('queued', 'running') ORDER BY created_at LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map(fromRow)),
        Effect.mapError(storeError("unfinished"))
      ),

    // Served by the partial index tasks_expiring; the id orders tasks expiring in one millisecond.
    expiring: (now, limit) =>
      sql<{
        partnerId: Ids.PartnerId
        id: Ids.TaskId
      }>`SELECT partner_id, id FROM tasks WHERE status IN ('queued', 'running') AND expires_at <= ${now}
        ORDER BY expires_at, id LIMIT ${limit}`.pipe(Effect.mapError(storeError("expiring"))),

    nextExpiry: sql<{
      at: number | null
    }>`SELECT min(expires_at) AS at FROM tasks WHERE status IN ('queued', 'running')`.pipe(
      Effect.map(([row]) => row?.at ?? undefined),
      Effect.mapError(storeError("nextExpiry"))
    )
  }
  return store
})

export const layer: Layer.Layer<TaskStore, never, SqlClient.SqlClient> = Layer.effect(TaskStore, make)

/**
 * Stored-file records on SQL (PostgreSQL and PGlite). Provides the full store and the narrow
 * StoredFileLookup (ownership checks of generation tasks) from one implementation.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Errors, Files, type Ids } from "@frank/core"
import { Context, Effect, Layer } from "effect"
import { StoredFileStore, type StoredFileStoreShape } from "@frank/core/stores"

interface Row {
  readonly partnerId: Ids.PartnerId
  readonly id: Ids.StoredFileId
  readonly kind: Files.FileKind
  readonly mimeType: string
  readonly sizeBytes: number
  readonly width: number | null
  readonly height: number | null
  readonly durationSeconds: number | null
  readonly fps: number | null
  readonly pageCount: number | null
  readonly blobKey: string
  readonly createdAt: number
}

const COLUMNS =
  "partner_id, id, kind, mime_type, size_bytes, width, height, duration_seconds, fps, page_count, blob_key, created_at"

const fromRow = (r: Row): Files.StoredFile => {
  const measurements: Files.Measurements = {
    ...(r.width === null ? {} : { width: r.width }),
    ...(r.height === null ? {} : { height: r.height }),
    ...(r.durationSeconds === null ? {} : { durationSeconds: r.durationSeconds }),
    ...(r.fps === null ? {} : { fps: r.fps }),
    ...(r.pageCount === null ? {} : { pageCount: r.pageCount })
  }
  return {
    id: r.id,
    partnerId: r.partnerId,
    kind: r.kind,
    mimeType: r.mimeType,
    sizeBytes: r.sizeBytes,
    measurements,
    blobKey: r.blobKey,
    createdAt: r.createdAt
  }
}

const storeError = Errors.storeErrorFor("stored file store")

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(COLUMNS)
  const get = (partnerId: Ids.PartnerId, id: Ids.StoredFileId) =>
    Effect.map(
      sql<Row>`SELECT ${columns} FROM stored_files WHERE partner_id = ${partnerId} AND id = ${id}::uuid`,
      (rows) => (rows[0] === undefined ? undefined : fromRow(rows[0]))
    )
  const store: StoredFileStoreShape = {
    insert: (file) =>
      sql`INSERT INTO stored_files ${sql.insert({
        partnerId: file.partnerId,
        id: file.id,
        kind: file.kind,
        mimeType: file.mimeType,
        sizeBytes: file.sizeBytes,
        width: file.measurements.width ?? null,
        height: file.measurements.height ?? null,
        durationSeconds: file.measurements.durationSeconds ?? null,
        fps: file.measurements.fps ?? null,
        pageCount: file.measurements.pageCount ?? null,
        blobKey: file.blobKey,
        createdAt: file.createdAt
      })}`.pipe(Effect.asVoid, Effect.mapError(storeError("insert"))),
    get: (partnerId, id) => Effect.mapError(get(partnerId, id), storeError("get")),
    owns: (partnerId, id) =>
      sql<{ n: number }>`SELECT 1 AS n FROM stored_files WHERE partner_id = ${partnerId} AND id = ${id}::uuid`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.mapError(storeError("owns"))
      ),
    findForServing: (id) =>
      sql<Row>`SELECT ${columns} FROM stored_files WHERE id = ${id}::uuid`.pipe(
        Effect.map((rows) => (rows[0] === undefined ? undefined : fromRow(rows[0]))),
        Effect.mapError(storeError("findForServing"))
      )
  }
  return store
})

/** Both tags from one store. */
export const layer: Layer.Layer<StoredFileStore | Files.StoredFileLookup, never, SqlClient.SqlClient> =
  Layer.effectContext(
    Effect.map(make, (store) => Context.make(StoredFileStore, store).pipe(Context.add(Files.StoredFileLookup, store)))
  )

/**
 * A file imported by a partner: its bytes live in the blob store under `blobKey`, this record
 * holds what was learned from them. `mimeType` is the sniffed format's, never the source's claim.
 */
import type { FileKind } from "./FileKind.js"
import type { StoredFileId, PartnerId } from "../EntityIds.js"
import type { Measurements } from "./import/Measurements.js"

/** A stored file: its id, partner, kind, size, content type and measurements. */
export interface StoredFile {
  /** UUID v4. */
  readonly id: StoredFileId
  readonly partnerId: PartnerId
  readonly kind: FileKind
  readonly mimeType: string
  readonly sizeBytes: number
  readonly measurements: Measurements
  readonly blobKey: string
  /** Epoch ms. */
  readonly createdAt: number
}

/** Blob keys group a partner's files; characters outside [A-Za-z0-9._-] are replaced, ids are unique anyway. */
export const blobKeyFor = (partnerId: PartnerId, fileId: string): string =>
  `${partnerId.replace(/[^A-Za-z0-9._-]/g, "_")}/${fileId}`

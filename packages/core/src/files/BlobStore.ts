/**
 * Where the bytes of stored files live. A port so the host's filesystem store (adapters) and an
 * S3-compatible object store are interchangeable: keys are opaque `partner/fileId` paths, values
 * are immutable once written (a key is written once and never rewritten).
 *
 * An S3-compatible store implements `put` as a (multipart) upload of `source.stream` with
 * `sizeBytes` as Content-Length, `get` as a GetObject stream, `delete` as DeleteObject; it ignores
 * `localPath`. See docs/decisions.md ("Blob storage").
 */
import { Context, type Effect, type Stream } from "effect"
import type { StoreError } from "../StoreError.js"

export interface BlobSource {
  readonly sizeBytes: number
  readonly stream: Stream.Stream<Uint8Array, StoreError>
  /**
   * A local file holding exactly these bytes, when there is one (a spooled download). A store on
   * the same filesystem may move it into place instead of copying; the caller does not use the
   * file after a successful `put`.
   */
  readonly localPath?: string | undefined
}

export interface BlobRead {
  readonly sizeBytes: number
  readonly stream: Stream.Stream<Uint8Array, StoreError>
}

/** The operations of the blob store port. */
export interface BlobStoreShape {
  /** Writes the blob completely or not at all: readers never see a partial value. */
  readonly put: (key: string, source: BlobSource) => Effect.Effect<void, StoreError>
  /** Stores `bytes` under `key`, replacing what was there. */
  readonly putBytes: (key: string, bytes: Uint8Array) => Effect.Effect<void, StoreError>
  /** undefined when there is no such blob. */
  readonly get: (key: string) => Effect.Effect<BlobRead | undefined, StoreError>
  /** Removing a missing blob is not an error. */
  readonly delete: (key: string) => Effect.Effect<void, StoreError>
}

/** Port: where the bytes of stored files live (filesystem in adapters, memory in tests). */
export class BlobStore extends Context.Tag("@frank/core/BlobStore")<BlobStore, BlobStoreShape>() {}

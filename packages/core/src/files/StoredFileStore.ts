/**
 * The storage port of stored-file records (the bytes are in the BlobStore). Memory in
 * `@frank/core/testing`, SQL in adapters; one contract suite holds both to the same behaviour.
 * It is also the StoredFileLookup other areas use to check ownership.
 */
import { Context, type Effect } from "effect"
import type { StoredFileId, PartnerId } from "../EntityIds.js"
import type { StoreError } from "../StoreError.js"
import type { StoredFile } from "./StoredFile.js"
import type { StoredFileLookupShape } from "./StoredFileLookup.js"

/** The operations of the stored file store port. */
export interface StoredFileStoreShape extends StoredFileLookupShape {
  /** Records a new stored file. */
  readonly insert: (file: StoredFile) => Effect.Effect<void, StoreError>
  /** The partner's file; a foreign or unknown id (or one that is no UUID) is undefined. */
  readonly get: (partnerId: PartnerId, id: StoredFileId) => Effect.Effect<StoredFile | undefined, StoreError>
  /**
   * By id alone, for serving the file at its URL: the one read not scoped by partner, because the
   * URL's unguessable token (checked by the caller) is the authorisation, not a partner's key.
   */
  readonly findForServing: (id: StoredFileId) => Effect.Effect<StoredFile | undefined, StoreError>
}

/** Port: where stored file records are kept. */
export class StoredFileStore extends Context.Tag("@frank/core/StoredFileStore")<
  StoredFileStore,
  StoredFileStoreShape
>() {}

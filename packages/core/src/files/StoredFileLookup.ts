/**
 * The narrow question other areas (generation tasks) ask about stored files: does this partner own
 * this file? A port of its own so a task validator depends on one method, not on the whole
 * stored-file store; the stored-file stores (memory and SQL) implement it.
 *
 * A file of another partner answers false exactly like a missing one: foreign ids never leak.
 */
import { Context, type Effect } from "effect"
import type { StoredFileId, PartnerId } from "../EntityIds.js"
import type { StoreError } from "../StoreError.js"

export interface StoredFileLookupShape {
  /** Whether the file exists and belongs to the partner (a foreign file answers false, like a missing one). */
  readonly owns: (partnerId: PartnerId, fileId: StoredFileId) => Effect.Effect<boolean, StoreError>
}

/** Port: finds a partner's stored file by id (what tasks need of the file store). */
export class StoredFileLookup extends Context.Tag("@frank/core/StoredFileLookup")<
  StoredFileLookup,
  StoredFileLookupShape
>() {}

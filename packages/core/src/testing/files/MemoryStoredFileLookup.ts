/**
 * A StoredFileLookup on memory for tests and simulations of generation tasks: files are "owned"
 * once registered with `OwnedFiles.add`, without importing anything. The stored-file stores
 * implement the same port for real.
 */
import { Context, Effect, Layer } from "effect"
import { StoredFileLookup } from "../../files/StoredFileLookup.js"
import type { PartnerId } from "../../EntityIds.js"

/** Makes files exist for the memory stored file lookup. */
export class OwnedFiles extends Context.Tag("@frank/core/testing/OwnedFiles")<
  OwnedFiles,
  {
    /** Makes `fileId` a stored file of `partnerId`. */
    readonly add: (partnerId: PartnerId, fileId: string) => Effect.Effect<void>
  }
>() {}

/** A stored file lookup in memory, filled through OwnedFiles. */
export const MemoryStoredFileLookup: Layer.Layer<StoredFileLookup | OwnedFiles> = Layer.effectContext(
  Effect.sync(() => {
    const owned = new Set<string>()
    const key = (partnerId: PartnerId, fileId: string) => `${partnerId}\u0000${fileId.toLowerCase()}`
    return Context.make(StoredFileLookup, {
      owns: (partnerId, fileId) => Effect.sync(() => owned.has(key(partnerId, fileId)))
    }).pipe(
      Context.add(OwnedFiles, {
        add: (partnerId, fileId) =>
          Effect.sync(() => {
            owned.add(key(partnerId, fileId))
          })
      })
    )
  })
)

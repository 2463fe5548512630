/**
 * Stored-file records on plain memory, for simulations and fast tests. Provides both the full
 * store and the narrow StoredFileLookup other areas depend on.
 */
import { Context, Effect, Layer } from "effect"
import type { StoredFile } from "../../files/StoredFile.js"
import { StoredFileLookup } from "../../files/StoredFileLookup.js"
import { StoredFileStore, type StoredFileStoreShape } from "../../files/StoredFileStore.js"
import { StoreError } from "../../StoreError.js"
import type { PartnerId } from "../../EntityIds.js"

export const makeMemoryStoredFileStore = (): StoredFileStoreShape => {
  // By id alone: ids are UUID v4, unique across partners; reads check the partner.
  const files = new Map<string, StoredFile>()
  const get = (partnerId: PartnerId, id: string) => {
    const file = files.get(id.toLowerCase())
    return file !== undefined && file.partnerId === partnerId ? file : undefined
  }
  return {
    insert: (file) =>
      Effect.suspend(() => {
        const id = file.id.toLowerCase()
        if (files.has(id)) return Effect.fail(new StoreError({ message: `stored file store: duplicate id ${file.id}` }))
        files.set(id, file)
        return Effect.void
      }),
    get: (partnerId, id) => Effect.sync(() => get(partnerId, id)),
    owns: (partnerId, id) => Effect.sync(() => get(partnerId, id) !== undefined),
    findForServing: (id) => Effect.sync(() => files.get(id.toLowerCase()))
  }
}

/** One store behind both tags, fresh per layer build. */
export const MemoryStoredFileStore: Layer.Layer<StoredFileStore | StoredFileLookup> = Layer.effectContext(
  Effect.sync(() => {
    const store = makeMemoryStoredFileStore()
    return Context.make(StoredFileStore, store).pipe(Context.add(StoredFileLookup, store))
  })
)

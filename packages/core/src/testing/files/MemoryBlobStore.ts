/**
 * Blobs on plain memory, for simulations and fast tests. `put` drains the source stream (a
 * `localPath` is ignored: memory has no filesystem to move it on).
 */
import { Chunk, Effect, Layer, Stream } from "effect"
import { BlobStore, type BlobStoreShape } from "../../files/BlobStore.js"

const concat = (chunks: Chunk.Chunk<Uint8Array>): Uint8Array => {
  const parts = Chunk.toReadonlyArray(chunks)
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/** A blob store in memory, with its keys for assertions. */
export const makeMemoryBlobStore = (): BlobStoreShape & { readonly keys: () => ReadonlyArray<string> } => {
  const blobs = new Map<string, Uint8Array>()
  return {
    put: (key, source) => Effect.map(Stream.runCollect(source.stream), (chunks) => void blobs.set(key, concat(chunks))),
    putBytes: (key, bytes) => Effect.sync(() => void blobs.set(key, bytes.slice())),
    get: (key) =>
      Effect.sync(() => {
        const bytes = blobs.get(key)
        return bytes === undefined ? undefined : { sizeBytes: bytes.length, stream: Stream.make(bytes) }
      }),
    delete: (key) => Effect.sync(() => void blobs.delete(key)),
    keys: () => [...blobs.keys()]
  }
}

export const MemoryBlobStore: Layer.Layer<BlobStore> = Layer.sync(BlobStore, makeMemoryBlobStore)

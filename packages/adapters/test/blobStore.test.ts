/**
 * Blob stores: the filesystem store of the host and core's memory store behave the same through
 * the port; the filesystem store also moves spooled files in, refuses keys that could escape its
 * root, and never leaves a partial blob behind.
 */
import { existsSync } from "node:fs"
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Errors } from "@frank/core"
import { makeMemoryBlobStore } from "@frank/core/testing"
import { Chunk, Effect, Stream } from "effect"
import { FileBlobStore } from "../src/index.js"
import type { BlobStoreShape } from "@frank/core/stores"

const tempRoot = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "frank-blobs-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

const bytesOf = (store: BlobStoreShape, key: string) =>
  Effect.gen(function* () {
    const blob = yield* store.get(key)
    if (blob === undefined) return undefined
    const chunks = yield* Stream.runCollect(blob.stream)
    return { sizeBytes: blob.sizeBytes, bytes: Buffer.concat(Chunk.toReadonlyArray(chunks)) }
  })

const engines: ReadonlyArray<readonly [string, Effect.Effect<BlobStoreShape, never, import("effect").Scope.Scope>]> = [
  ["memory", Effect.sync(makeMemoryBlobStore)],
  ["filesystem", Effect.map(tempRoot, FileBlobStore.make)]
]

for (const [name, make] of engines)
  describe(`blob store on ${name}`, () => {
    it.scoped("puts bytes and streams, reads them back, deletes idempotently", () =>
      Effect.gen(function* () {
        const store = yield* make
        const small = new Uint8Array([1, 2, 3])
        yield* store.putBytes("p1/a", small)
        expect(yield* bytesOf(store, "p1/a")).toEqual({ sizeBytes: 3, bytes: Buffer.from(small) })
        // A multi-chunk stream of 3 MiB arrives whole and in order.
        const parts = Array.from({ length: 3 }, (_, i) => new Uint8Array(1024 * 1024).fill(i + 1))
        yield* store.put("p1/b", { sizeBytes: 3 * 1024 * 1024, stream: Stream.fromIterable(parts) })
        const b = yield* bytesOf(store, "p1/b")
        expect(b?.sizeBytes).toBe(3 * 1024 * 1024)
        expect(b?.bytes.equals(Buffer.concat(parts))).toBe(true)
        expect(yield* store.get("p1/missing")).toBeUndefined()
        yield* store.delete("p1/a")
        yield* store.delete("p1/a")
        expect(yield* store.get("p1/a")).toBeUndefined()
        expect(yield* bytesOf(store, "p1/b")).toBeDefined()
      })
    )
  })

describe("filesystem blob store", () => {
  it.scoped("moves a spooled local file into place instead of copying it", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const store = FileBlobStore.make(root)
      const spooled = join(root, ".spool", "x.part")
      yield* Effect.promise(async () => {
        const { mkdir } = await import("node:fs/promises")
        await mkdir(join(root, ".spool"), { recursive: true })
        await writeFile(spooled, "spooled bytes")
      })
      yield* store.put("p1/c", {
        sizeBytes: 13,
        stream: Stream.die("the stream must not be read when the file can be moved"),
        localPath: spooled
      })
      expect(existsSync(spooled)).toBe(false)
      expect(yield* Effect.promise(() => readFile(join(root, "p1", "c"), "utf8"))).toBe("spooled bytes")
    })
  )

  it.scoped("refuses keys that could leave the root or hit its working folders", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const store = FileBlobStore.make(root)
      for (const key of ["../escape", "p1/../../escape", "/abs", ".spool/x", "p1/.tmp", "", "p1//x", "p1/x/", "a\\b"]) {
        const result = yield* Effect.either(store.putBytes(key, new Uint8Array([1])))
        expect(result._tag, key).toBe("Left")
        expect((yield* Effect.either(store.get(key)))._tag, key).toBe("Left")
      }
      expect(yield* Effect.promise(() => readdir(root))).toEqual([])
    })
  )

  it.scoped("leaves nothing behind when the source stream fails or gives the wrong size", () =>
    Effect.gen(function* () {
      const root = yield* tempRoot
      const store = FileBlobStore.make(root)
      const failing = Stream.concat(
        Stream.make(new Uint8Array([1, 2])),
        Stream.fail(new Errors.StoreError({ message: "source went away" }))
      )
      expect((yield* Effect.either(store.put("p1/d", { sizeBytes: 4, stream: failing })))._tag).toBe("Left")
      expect(
        (yield* Effect.either(store.put("p1/e", { sizeBytes: 4, stream: Stream.make(new Uint8Array([1, 2])) })))._tag
      ).toBe("Left")
      expect(yield* store.get("p1/d")).toBeUndefined()
      expect(yield* store.get("p1/e")).toBeUndefined()
      expect(yield* Effect.promise(() => readdir(join(root, ".tmp")))).toEqual([])
    })
  )
})

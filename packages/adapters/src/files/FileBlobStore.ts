/**
 * The BlobStore on the local filesystem: one file per blob under `root` (the host uses
 * `FRANK_DATA_DIR/files`). Writes go to `root/.tmp` and are renamed into place, so a reader never
 * sees half a blob; a spooled download on the same filesystem is moved in, not copied.
 *
 * Keys are validated against a strict pattern (segments of [A-Za-z0-9._-] that do not start with
 * a dot), so no key can climb out of `root` or land in `.tmp`/`.spool`.
 */
import { randomUUID } from "node:crypto"
import { createReadStream } from "node:fs"
import { copyFile, mkdir, open, rename, rm, stat } from "node:fs/promises"
import { dirname, join } from "node:path"
import { Errors } from "@frank/core"
import { Effect, Layer, Stream } from "effect"
import { BlobStore, type BlobStoreShape } from "@frank/core/stores"

const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/

/** Read chunk size: large enough that serving 100 MiB is a few hundred reads. */
const READ_CHUNK_BYTES = 1024 * 1024

const errorCode = (e: unknown) => (e as { readonly code?: unknown } | undefined)?.code

export const readFileStream = (path: string): Stream.Stream<Uint8Array, Errors.StoreError> =>
  Stream.fromAsyncIterable(
    createReadStream(path, { highWaterMark: READ_CHUNK_BYTES }) as AsyncIterable<Buffer>,
    Errors.storeErrorFor("blob store")(`reading ${path}`)
  )

/** A BlobStore over files under `root`. */
export const make = (root: string): BlobStoreShape => {
  const tmpDir = join(root, ".tmp")
  const fail = Errors.storeErrorFor("file blob store")

  const pathFor = (key: string) =>
    KEY.test(key) && key.length <= 512
      ? Effect.succeed(join(root, key))
      : Effect.fail(new Errors.StoreError({ message: `file blob store: invalid key ${JSON.stringify(key)}` }))

  /** Moves a finished file into place; EXDEV (another filesystem) falls back to a copy. */
  const install = (from: string, target: string, removeSource: boolean) =>
    Effect.tryPromise({
      try: async () => {
        await mkdir(dirname(target), { recursive: true })
        try {
          await rename(from, target)
        } catch (e) {
          if (errorCode(e) !== "EXDEV") throw e
          const staged = join(tmpDir, randomUUID())
          await mkdir(tmpDir, { recursive: true })
          await copyFile(from, staged)
          await rename(staged, target)
          if (removeSource) await rm(from, { force: true })
        }
      },
      catch: fail("install")
    })

  const writeStaged = (write: (path: string) => Effect.Effect<void, Errors.StoreError>) =>
    Effect.acquireUseRelease(
      Effect.tryPromise({
        try: async () => {
          await mkdir(tmpDir, { recursive: true })
          return join(tmpDir, randomUUID())
        },
        catch: fail("staging")
      }),
      write,
      // Gone after a successful install; removes the leftovers of a failed write.
      (staged) => Effect.promise(() => rm(staged, { force: true }))
    )

  const writeStream =
    (stream: Stream.Stream<Uint8Array, Errors.StoreError>, expectedBytes: number | undefined) => (staged: string) =>
      Effect.acquireUseRelease(
        Effect.tryPromise({ try: () => open(staged, "wx"), catch: fail("open") }),
        (handle) =>
          Effect.gen(function* () {
            let written = 0
            yield* Stream.runForEach(stream, (chunk) =>
              Effect.tryPromise({
                try: async () => {
                  // A FileHandle write may be partial; loop until the chunk is on disk.
                  let offset = 0
                  while (offset < chunk.length)
                    offset += (await handle.write(chunk, offset, chunk.length - offset)).bytesWritten
                  written += chunk.length
                },
                catch: fail("write")
              })
            )
            if (expectedBytes !== undefined && written !== expectedBytes)
              return yield* new Errors.StoreError({
                message: `file blob store: expected ${expectedBytes} bytes, the source gave ${written}`
              })
          }),
        (handle) => Effect.promise(() => handle.close())
      )

  return {
    put: (key, source) =>
      Effect.gen(function* () {
        const target = yield* pathFor(key)
        if (source.localPath !== undefined) return yield* install(source.localPath, target, true)
        yield* writeStaged((staged) =>
          Effect.zipRight(writeStream(source.stream, source.sizeBytes)(staged), install(staged, target, false))
        )
      }),
    putBytes: (key, bytes) =>
      Effect.gen(function* () {
        const target = yield* pathFor(key)
        yield* writeStaged((staged) =>
          Effect.zipRight(writeStream(Stream.make(bytes), bytes.length)(staged), install(staged, target, false))
        )
      }),
    get: (key) =>
      Effect.gen(function* () {
        const path = yield* pathFor(key)
        const info = yield* Effect.tryPromise({
          try: () => stat(path).catch((e: unknown) => (errorCode(e) === "ENOENT" ? undefined : Promise.reject(e))),
          catch: fail("stat")
        })
        return info === undefined ? undefined : { sizeBytes: info.size, stream: readFileStream(path) }
      }),
    delete: (key) =>
      Effect.flatMap(pathFor(key), (path) =>
        Effect.tryPromise({ try: () => rm(path, { force: true }), catch: fail("delete") })
      )
  }
}

/** `BlobStore` over files under `root`. */
export const layer = (root: string): Layer.Layer<BlobStore> => Layer.sync(BlobStore, () => make(root))

/**
 * One mediainfo.js (WASM) instance shared by the process, one analysis at a time: an instance
 * that is asked to start a second analysis throws and corrupts the first one's result, so calls
 * wait in line on a semaphore. The instance reads the spool file at the offsets it asks for (an
 * MP4 with its index at the end is read at both ends, not all the way through).
 */
import { open } from "node:fs/promises"
import { Effect } from "effect"
import type { MediaInfo, MediaInfoResult } from "mediainfo.js"
import { importOptional } from "../../node/internal/optionalPackage.js"

export type MediaInfoTrack = MediaInfoResult["media"] extends infer M
  ? M extends { readonly track: ReadonlyArray<infer T> }
    ? T
    : never
  : never

export interface MediaInfoAnalyzer {
  readonly analyze: (path: string, sizeBytes: number) => Effect.Effect<ReadonlyArray<MediaInfoTrack>, Error>
}

const analyzeFile = async (instance: MediaInfo<"object">, path: string, sizeBytes: number) => {
  const handle = await open(path, "r")
  try {
    const result = await instance.analyzeData(sizeBytes, async (size, offset) => {
      const buffer = Buffer.alloc(Math.min(size, Math.max(0, sizeBytes - offset)))
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset)
      return buffer.subarray(0, bytesRead)
    })
    return result.media?.track ?? []
  } finally {
    await handle.close()
  }
}

/** A lazily created instance behind a one-permit semaphore; closed with the scope. */
export const make = Effect.gen(function* () {
  const lock = yield* Effect.makeSemaphore(1)
  let instance: MediaInfo<"object"> | undefined
  yield* Effect.addFinalizer(() => Effect.sync(() => instance?.close()))
  // The module and its WASM load on the first video, not at start.
  const create = async () =>
    (await importOptional("mediainfo.js", "Measuring video", () => import("mediainfo.js"))).default({
      format: "object",
      coverData: false
    })
  const analyzer: MediaInfoAnalyzer = {
    analyze: (path, sizeBytes) =>
      lock.withPermits(1)(
        Effect.tryPromise({
          try: async () => {
            instance ??= await create()
            try {
              return await analyzeFile(instance, path, sizeBytes)
            } catch (error) {
              // Do not trust an instance an analysis failed in: the next call gets a fresh one.
              instance.close()
              instance = undefined
              throw error
            }
          },
          catch: (e) => (e instanceof Error ? e : new Error(String(e)))
        })
      )
  }
  return analyzer
})

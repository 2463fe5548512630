/**
 * The import engine as tests and benchmarks assemble it: StoredFiles over the real Node adapters
 * (guarded download into a spool, the Node probe, the filesystem blob store) with memory records,
 * in a temporary directory removed with the scope.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  FileBlobStore,
  type GuardedConnectorOptions,
  GuardedDispatcher,
  HttpMediaFetcher,
  NodeMediaProbe
} from "@frank/adapters"
import { Access, Files, Ids } from "@frank/core"
import { MemoryStoredFileStore } from "@frank/core/testing"
import { Context, Effect, Layer, Redacted } from "effect"

export interface FilesEngineOptions {
  readonly agent: GuardedConnectorOptions
  readonly maxConcurrentImports?: number
  readonly totalTimeoutMs?: number
  /** An existing directory (else a fresh temporary one, removed at the end). */
  readonly root?: string
}

export const TEST_BASE_URL = "https://frank.test"

export const filesEngine = (options: FilesEngineOptions) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const root =
        options.root ??
        (yield* Effect.acquireRelease(
          Effect.promise(() => mkdtemp(join(tmpdir(), "frank-files-"))),
          (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
        ))
      const agent = yield* Effect.acquireRelease(
        Effect.sync(() => GuardedDispatcher.makeAgent(options.agent)),
        (a) => Effect.promise(() => a.destroy())
      )
      const fetcher = Layer.succeed(
        Files.MediaFetcher,
        HttpMediaFetcher.make({
          dispatcher: agent,
          allowPrivateNetwork: options.agent.allowPrivateNetwork,
          spoolDir: join(root, ".spool"),
          ...(options.totalTimeoutMs === undefined ? {} : { totalTimeoutMs: options.totalTimeoutMs })
        })
      )
      return Files.StoredFiles.layer.pipe(
        Layer.provideMerge(
          Layer.mergeAll(
            MemoryStoredFileStore,
            FileBlobStore.layer(root),
            fetcher,
            NodeMediaProbe.layer,
            Files.ImportSettings.layer({
              allowPrivateNetwork: options.agent.allowPrivateNetwork,
              maxConcurrentImports: options.maxConcurrentImports ?? 4
            }),
            Files.StoredFileUrls.layerHostServed(TEST_BASE_URL)
          )
        ),
        Layer.provideMerge(Layer.mergeAll(Ids.Ids.layer, Access.Secrets.layer(Redacted.make("test-pepper")))),
        Layer.provideMerge(Layer.succeed(FilesRoot, root))
      )
    })
  )

/** The engine's blob directory. */
export class FilesRoot extends Context.Tag("test/FilesRoot")<FilesRoot, string>() {}

/**
 * The stored-files service: imports (by URL or by an owned storedFileId) and serving a file at
 * its URL. The rules are pure functions beside it (import URL policy, format decision, tracks,
 * measurements); the ports do the I/O (fetcher, probe, blob store, record store).
 *
 * An import by URL holds one of `maxConcurrentImports` permits from download to stored record;
 * requests beyond that wait for a permit (in arrival order) rather than fail.
 */
import { Clock, Context, Effect, Either, Layer, Option } from "effect"
import { Secrets } from "../access/Secrets.js"
import { parseId, StoredFileId, type PartnerId } from "../EntityIds.js"
import { Ids } from "../internal/ids.js"
import type { StoreError } from "../StoreError.js"
import { BlobStore, type BlobRead } from "./BlobStore.js"
import type { FileKind } from "./FileKind.js"
import {
  type ImportError,
  ImportSourceInvalid,
  ImportTooLarge,
  ImportKindMismatch,
  StoredFileNotFound
} from "./import/ImportError.js"
import { ImportSettings } from "./import/ImportSettings.js"
import { checkImportUrl } from "./import/importUrl.js"
import { describeBytes, maxBytesFor } from "./import/limits.js"
import { checkTracks, decideFormat } from "./import/MediaFormat.js"
import { MediaFetcher } from "./import/MediaFetcher.js"
import { MediaProbe } from "./import/MediaProbe.js"
import { finishMeasurements } from "./import/Measurements.js"
import { blobKeyFor, type StoredFile } from "./StoredFile.js"
import { StoredFileStore } from "./StoredFileStore.js"
import { fileAccessToken, sameToken, StoredFileUrls } from "./StoredFileUrls.js"

export interface ImportRequest {
  readonly kind: FileKind
  readonly url?: string | undefined
  readonly storedFileId?: string | undefined
}

/** A file imported from a URL: the stored file and the URL it came from. */
export interface ImportedFile {
  readonly file: StoredFile
  readonly url: string
}

export interface OpenedFile {
  readonly file: StoredFile
  readonly blob: BlobRead
}

export interface StoredFilesShape {
  readonly importFile: (
    partnerId: PartnerId,
    request: ImportRequest
  ) => Effect.Effect<ImportedFile, ImportError | StoreError>
  /** The file behind a URL's id and token; a wrong token answers exactly like an unknown id. */
  readonly open: (fileId: StoredFileId, token: string) => Effect.Effect<OpenedFile, StoredFileNotFound | StoreError>
}

const fromEither = <A, E>(e: Either.Either<A, E>): Effect.Effect<A, E> =>
  Either.match(e, { onLeft: Effect.fail, onRight: Effect.succeed })

/** Exactly one of url and storedFileId (spec); an empty string counts as given, and is then invalid. */
const sourceOf = (
  request: ImportRequest
): Either.Either<{ readonly url: string } | { readonly storedFileId: string }, ImportSourceInvalid> => {
  const hasUrl = request.url !== undefined
  const hasId = request.storedFileId !== undefined
  if (hasUrl === hasId)
    return Either.left(
      new ImportSourceInvalid({
        message: hasUrl ? "give either url or storedFileId, not both" : "give url (a public HTTPS URL) or storedFileId"
      })
    )
  return Either.right(hasUrl ? { url: request.url as string } : { storedFileId: request.storedFileId as string })
}

/** The stored files service: imports from URLs, lists, gets and deletes a partner's files. */
export class StoredFiles extends Context.Tag("@frank/core/StoredFiles")<StoredFiles, StoredFilesShape>() {
  static readonly layer = Layer.effect(
    StoredFiles,
    Effect.gen(function* () {
      const store = yield* StoredFileStore
      const blobs = yield* BlobStore
      const fetcher = yield* MediaFetcher
      const probe = yield* MediaProbe
      const urls = yield* StoredFileUrls
      const ids = yield* Ids
      const secrets = yield* Secrets
      const settings = yield* ImportSettings
      const permits = yield* Effect.makeSemaphore(Math.max(1, settings.maxConcurrentImports))

      const withUrl = (file: StoredFile) => Effect.map(urls.urlFor(file), (url): ImportedFile => ({ file, url }))

      const reimport = (partnerId: PartnerId, kind: FileKind, raw: string) =>
        Effect.gen(function* () {
          const id = Option.getOrUndefined(parseId(StoredFileId)(raw))
          if (id === undefined) return yield* new ImportSourceInvalid({ message: "storedFileId must be a UUID v4" })
          const file = yield* store.get(partnerId, id)
          if (file === undefined) return yield* new StoredFileNotFound({ message: `no stored file ${id}` })
          if (file.kind !== kind)
            return yield* new ImportKindMismatch({
              message: `stored file ${id} is ${file.kind === "image" || file.kind === "audio" ? "an" : "a"} ${file.kind}, not ${kind}`
            })
          return yield* withUrl(file)
        })

      const download = (partnerId: PartnerId, kind: FileKind, raw: string) =>
        Effect.gen(function* () {
          const url = yield* fromEither(checkImportUrl(raw, settings))
          const maxBytes = maxBytesFor(kind)
          const media = yield* fetcher.fetch({ url, maxBytes })
          // The fetcher enforces the limit while streaming; this keeps a fetcher that does not honest.
          if (media.sizeBytes > maxBytes)
            return yield* new ImportTooLarge({
              message: `the file is larger than the ${kind} limit of ${describeBytes(maxBytes)}`
            })
          const sniffed = yield* probe.sniff(media)
          const decided = yield* fromEither(decideFormat(kind, sniffed, media.hints))
          const probed = yield* probe.measure(media, decided)
          const format =
            decided.measure === "video"
              ? yield* fromEither(checkTracks(decided, probed.tracks ?? { video: false, audio: false }))
              : decided
          const measurements = yield* fromEither(finishMeasurements(format, probed))
          const id = yield* ids.nextId(StoredFileId)
          const file: StoredFile = {
            id,
            partnerId,
            kind,
            mimeType: format.mimeType,
            sizeBytes: media.sizeBytes,
            measurements,
            blobKey: blobKeyFor(partnerId, id),
            createdAt: yield* Clock.currentTimeMillis
          }
          yield* blobs.put(file.blobKey, {
            sizeBytes: media.sizeBytes,
            stream: media.stream,
            localPath: media.localPath
          })
          // A record that cannot be written leaves no orphan blob behind (best effort: the
          // record failure is what the caller needs to hear about).
          yield* store.insert(file).pipe(Effect.tapError(() => Effect.ignore(blobs.delete(file.blobKey))))
          return yield* withUrl(file)
        }).pipe(Effect.scoped, permits.withPermits(1))

      const service: StoredFilesShape = {
        importFile: (partnerId, request) =>
          Effect.flatMap(
            fromEither(sourceOf(request)),
            (source): Effect.Effect<ImportedFile, ImportError | StoreError> =>
              "url" in source
                ? download(partnerId, request.kind, source.url)
                : reimport(partnerId, request.kind, source.storedFileId)
          ),
        open: (fileId, token) =>
          Effect.gen(function* () {
            const notFound = new StoredFileNotFound({ message: "no such file" })
            const expected = yield* fileAccessToken(secrets, fileId)
            if (!sameToken(expected, token)) return yield* notFound
            const file = yield* store.findForServing(fileId)
            if (file === undefined) return yield* notFound
            const blob = yield* blobs.get(file.blobKey)
            if (blob === undefined) {
              yield* Effect.logError("stored file has no blob").pipe(
                Effect.annotateLogs({ fileId, blobKey: file.blobKey })
              )
              return yield* notFound
            }
            return { file, blob }
          })
      }
      return service
    })
  )
}

/**
 * Handlers of the files group: import (thin over StoredFiles) and serving a stored file's bytes.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { StoredFileId } from "../../../EntityIds.js"
import { StoredFileNotFound } from "../../../files/import/ImportError.js"
import type { ImportedFile } from "../../../files/StoredFiles.js"
import { StoredFiles } from "../../../files/StoredFiles.js"
import { apiError } from "../../errors/ApiError.js"
import { orApiError } from "../../errors/domainErrors.js"
import { idOr } from "../../pathIds.js"
import type { StoredFileView } from "../../groups/FilesGroup.js"
import { PartnerApi } from "../../PartnerApi.js"
import { CurrentApiKey } from "../Security.js"

export const storedFileView = ({ file, url }: ImportedFile): StoredFileView => ({
  storedFileId: file.id,
  url,
  kind: file.kind,
  mimeType: file.mimeType,
  sizeBytes: file.sizeBytes,
  ...file.measurements
})

/** Text is stored as UTF-8 (checked at import); say so, browsers guess otherwise. */
const servedContentType = (mimeType: string) => (mimeType.startsWith("text/") ? `${mimeType}; charset=utf-8` : mimeType)

export const FilesHandlers = HttpApiBuilder.group(PartnerApi, "files", (handlers) =>
  Effect.gen(function* () {
    const files = yield* StoredFiles
    return handlers
      .handle("import", ({ payload }) =>
        Effect.gen(function* () {
          const { partnerId } = yield* CurrentApiKey
          const imported = yield* orApiError(files.importFile(partnerId, payload))
          return { success: true as const, data: storedFileView(imported) }
        })
      )
      .handle("download", ({ path }) =>
        idOr(StoredFileId, path.storedFileId, () => new StoredFileNotFound({ message: "no such file" })).pipe(
          Effect.flatMap((id) => files.open(id, path.token)),
          Effect.catchTag("StoredFileNotFound", () => Effect.fail(apiError(404, "FILE_NOT_FOUND", "no such file"))),
          Effect.catchTag("StoreError", Effect.die),
          Effect.map(({ file, blob }) =>
            HttpServerResponse.stream(blob.stream, {
              contentType: servedContentType(file.mimeType),
              contentLength: blob.sizeBytes,
              headers: {
                "x-content-type-options": "nosniff",
                "content-security-policy": "sandbox; default-src 'none'",
                // Immutable bytes under a capability URL: caches may keep them, but only privately.
                "cache-control": "private, max-age=86400, immutable"
              }
            })
          )
        )
      )
  })
)

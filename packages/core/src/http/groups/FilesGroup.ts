/**
 * Files (spec "Endpoints → Files"): import a file by URL or by an owned storedFileId
 * (`media:run`, generation-area envelope), and the stored file's own URL.
 *
 * The file URL needs no API key: its path carries an unguessable token (see StoredFileUrls), so a
 * generation provider or the partner's pipeline can fetch it as is. It is served with the stored
 * (sniffed) content type, `nosniff`, and a CSP sandbox, so a browser never runs anything in it.
 */
import { IdempotencyClaim } from "../IdempotencyClaim.js"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { FileKind } from "../../files/FileKind.js"
import { BadRequest, NotFound } from "../errors/ApiError.js"
import { requestParseOptions } from "../internal/coerce.js"
import { generationSuccess } from "../internal/generationEnvelope.js"
import { ApiKeyAuth, RequiredScope } from "../internal/Security.js"

export const ImportRequestBody = Schema.Struct({
  kind: FileKind,
  url: Schema.optional(Schema.String).annotations({
    description: "A direct public HTTPS URL of the file (redirects are followed and re-checked)"
  }),
  storedFileId: Schema.optional(Schema.String).annotations({
    description: "UUID v4 of a file this partner imported before"
  })
}).annotations({
  identifier: "ImportRequest",
  description: "`kind` and exactly one of `url` and `storedFileId`",
  ...requestParseOptions
})

export const StoredFileView = Schema.Struct({
  storedFileId: Schema.String.annotations({ description: "UUID v4" }),
  url: Schema.String.annotations({
    description: "Where the file can be downloaded, without an API key (capability URL)"
  }),
  kind: FileKind,
  mimeType: Schema.String.annotations({ description: "From the file's bytes, not from the source's Content-Type" }),
  sizeBytes: Schema.Number,
  width: Schema.optional(Schema.Number).annotations({
    description: "Images and video, as displayed (EXIF orientation / rotation applied)"
  }),
  height: Schema.optional(Schema.Number).annotations({ description: "Images and video, as displayed" }),
  durationSeconds: Schema.optional(Schema.Number).annotations({ description: "Video and audio, to the millisecond" }),
  fps: Schema.optional(Schema.Number).annotations({ description: "Video frames per second" }),
  pageCount: Schema.optional(Schema.Number).annotations({ description: "PDF pages" })
}).annotations({ identifier: "StoredFile" })
export type StoredFileView = typeof StoredFileView.Type

const idParam = HttpApiSchema.param("storedFileId", Schema.String)
const tokenParam = HttpApiSchema.param("token", Schema.String)

/** The partner API's file endpoints (imports, listing, deletion). */
export class FilesGroup extends HttpApiGroup.make("files")
  .middleware(IdempotencyClaim)
  .add(
    HttpApiEndpoint.post("import", "/service/jobs/import")
      .setPayload(ImportRequestBody)
      .addSuccess(generationSuccess(StoredFileView).annotations({ identifier: "ImportResult" }))
      .addError(BadRequest)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "media:run")
      .annotate(
        OpenApi.Description,
        "Downloads (streamed, SSRF-guarded, size-limited: image 30 MiB, video 100 MiB, audio 50 MiB, PDF/TXT/MD 20 MiB), checks the format " +
          "against `kind`, measures and stores the file; or, with `storedFileId`, answers the stored record. No transcoding. " +
          "Failure codes (400): IMPORT_SOURCE_INVALID, IMPORT_SOURCE_REFUSED, IMPORT_SOURCE_UNAVAILABLE, IMPORT_FORMAT_UNSUPPORTED, " +
          "IMPORT_KIND_MISMATCH, IMPORT_TOO_LARGE, IMPORT_PDF_ENCRYPTED, IMPORT_TEXT_NOT_UTF8, IMPORT_FILE_UNREADABLE, FILE_NOT_FOUND. " +
          "10 imports per minute per partner."
      )
  )
  .add(
    HttpApiEndpoint.get("download")`/files/${idParam}/${tokenParam}`
      .addSuccess(
        HttpApiSchema.Uint8Array({ contentType: "application/octet-stream" }).annotations({
          description: "The file, with its stored content type"
        })
      )
      .addError(NotFound)
      .annotate(OpenApi.Description, "A stored file's `url`; no API key (the token in the path is the authorisation)")
  )
  .annotate(OpenApi.Title, "Files") {}

/**
 * Where a stored file can be downloaded: the `url` of the stored-file record.
 *
 * The reference host serves files itself at `{publicBaseUrl}/files/{storedFileId}/{token}`, a
 * capability URL: no API key is needed (generation providers and the partner's own pipeline
 * fetch it as is), and the token is HMAC-SHA256(pepper, "stored-file:" + id), 256 bits nobody
 * can guess or derive from the id, which is shown in task inputs, events and logs. Nothing is
 * stored for it, so the URL is the same every time the record is read.
 *
 * A deployment on an S3-compatible store may provide its own StoredFileUrls instead (a CDN URL
 * or a presigned GET), leaving the host route unused.
 */
import { Context, Effect, Layer } from "effect"
import { Secrets, type SecretsShape } from "../access/Secrets.js"
import type { StoredFile } from "./StoredFile.js"

export interface StoredFileUrlsShape {
  readonly urlFor: (file: StoredFile) => Effect.Effect<string>
}

/** The path prefix of host-served files. */
export const FILES_PATH = "/files"

export const fileAccessToken = (secrets: SecretsShape, fileId: string): Effect.Effect<string> =>
  secrets.keyedHash(`stored-file:${fileId}`)

/** Compares in time independent of where the strings differ, so the token cannot be probed byte by byte. */
export const sameToken = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return diff === 0
}

/** Makes the public URLs of stored files (signed by the host). */
export class StoredFileUrls extends Context.Tag("@frank/core/StoredFileUrls")<StoredFileUrls, StoredFileUrlsShape>() {
  /** Files served by the host at `{baseUrl}/files/{id}/{token}`; `baseUrl` without a trailing slash. */
  static readonly layerHostServed = (baseUrl: string): Layer.Layer<StoredFileUrls, never, Secrets> =>
    Layer.effect(
      StoredFileUrls,
      Effect.map(Secrets, (secrets) => ({
        urlFor: (file) =>
          Effect.map(
            fileAccessToken(secrets, file.id),
            (token) => `${baseUrl.replace(/\/+$/, "")}${FILES_PATH}/${file.id}/${token}`
          )
      }))
    )
}

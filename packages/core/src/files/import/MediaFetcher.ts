/**
 * The port that brings a source's bytes close: downloads a URL into a spool (a temporary local
 * copy the inspection tools can read at random offsets) while counting bytes against a limit.
 * The Node adapter streams through the SSRF-guarded agent; core never touches sockets or files.
 *
 * The spool lives as long as the Scope the fetch runs in.
 */
import { Context, type Effect, type Scope, type Stream } from "effect"
import type { StoreError } from "../../StoreError.js"
import type { FetchError } from "./ImportError.js"
import type { SourceHints } from "./MediaFormat.js"

/** Fetched bytes held in a spool: size, a stream of them and how to release the spool. */
export interface SpooledMedia {
  readonly sizeBytes: number
  /** The bytes, read again from the spool. */
  readonly stream: Stream.Stream<Uint8Array, StoreError>
  /** The spool's local path when it is a file (see BlobSource.localPath). */
  readonly localPath?: string | undefined
  /** What the source said about the bytes (name, Content-Type); trusted for plain text only. */
  readonly hints: SourceHints
}

export interface FetchRequest {
  /** Already checked by the import URL policy; the fetcher re-checks every redirect target. */
  readonly url: URL
  /** Abort as soon as more bytes than this arrive, whatever Content-Length says. */
  readonly maxBytes: number
}

/** The operations of the media fetcher port. */
export interface MediaFetcherShape {
  /** Downloads the URL into a spool file that lives as long as the scope; a refused, failed or oversized download fails with its `FetchError`. */
  readonly fetch: (request: FetchRequest) => Effect.Effect<SpooledMedia, FetchError, Scope.Scope>
}

/** Port: fetches a URL's bytes into a spool file, within the size limits. */
export class MediaFetcher extends Context.Tag("@frank/core/MediaFetcher")<MediaFetcher, MediaFetcherShape>() {}

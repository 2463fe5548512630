/**
 * The MediaFetcher over HTTP: a streamed, SSRF-safe download into a spool file.
 *
 * - Every connection goes through the guarded agent (dial-time checks: no IP literals, every
 *   resolved address public, the connected peer public), TLS verified.
 * - Redirects are followed here, by hand, up to `maxRedirects`: each target passes the import URL
 *   policy again before it is requested, and its connection passes the guard again.
 * - A Content-Length above the limit is refused before any body byte is read; without one (or
 *   with a lying one) bytes are counted as they arrive and the download is aborted, its
 *   connection closed, as soon as the count passes the limit.
 * - The body streams straight to disk; memory holds one chunk at a time whatever the size.
 * - Time limits: undici's header and body idle timeouts, plus a deadline for the whole download.
 */
import { randomUUID } from "node:crypto"
import { createWriteStream } from "node:fs"
import { mkdir, readdir, rm, stat } from "node:fs/promises"
import { join } from "node:path"
import { Transform } from "node:stream"
import { pipeline } from "node:stream/promises"
import { Files, Time } from "@frank/core"
import { Clock, Duration, Effect, Either, Layer } from "effect"
import { type Dispatcher, request } from "undici"
import { isAddressRefusedError } from "../net/AddressRefusedError.js"
import * as GuardedDispatcher from "../net/GuardedDispatcher.js"
import { describeError } from "../webhooks/HttpWebhookTransport.js"
import { readFileStream } from "./FileBlobStore.js"

export interface HttpMediaFetcherOptions {
  /** A guarded agent (`GuardedDispatcher.makeAgent`); the fetcher relies on it for the dial-time checks. */
  readonly dispatcher: Dispatcher
  /** Must match the agent's setting: also lets http:// and internal names through the URL policy. */
  readonly allowPrivateNetwork: boolean
  /** Where downloads are spooled; on the blob store's filesystem, spooled files are moved in. */
  readonly spoolDir: string
  readonly maxRedirects?: number
  /** Until the response headers arrive. */
  readonly headersTimeoutMs?: number
  /** Longest silence while the body streams. */
  readonly bodyIdleTimeoutMs?: number
  /** The whole download, redirects included. */
  readonly totalTimeoutMs?: number
}

export const DEFAULT_MAX_REDIRECTS = 5
const REDIRECTS = new Set([301, 302, 303, 307, 308])
const USER_AGENT = "Frank-Import/1"

const header = (
  headers: Record<string, string | ReadonlyArray<string> | undefined>,
  name: string
): string | undefined => {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : (value as string | undefined)
}

/** The last path segment, decoded: `notes.md` for `https://x.example/a/notes.md?x=1`. */
const fileNameOf = (url: URL): string | undefined => {
  const last = url.pathname.split("/").pop()
  if (last === undefined || last.length === 0) return undefined
  try {
    return decodeURIComponent(last)
  } catch {
    return last
  }
}

/**
 * Drops a body we will not read. Destroying it closes that one connection (unread bytes cannot be
 * skipped on HTTP/1.1); undici then reports an abort on the stream, which is expected here.
 */
const discard = (body: NodeJS.ReadableStream & { destroy: () => void }) => {
  body.on("error", () => {})
  body.destroy()
}

interface Downloaded {
  readonly sizeBytes: number
  readonly finalUrl: URL
  readonly contentType: string | undefined
}

const isFetchError = (e: unknown): e is Files.FetchError =>
  e instanceof Files.ImportTooLarge ||
  e instanceof Files.ImportSourceRefused ||
  e instanceof Files.ImportSourceInvalid ||
  e instanceof Files.ImportSourceUnavailable

const classify = (error: unknown): Files.FetchError => {
  if (isFetchError(error)) return error
  if (isAddressRefusedError(error))
    return new Files.ImportSourceRefused({ message: `the source is not on a public address: ${error.message}` })
  return new Files.ImportSourceUnavailable({ message: `the source could not be downloaded: ${describeError(error)}` })
}

export const make = (options: HttpMediaFetcherOptions): Files.MediaFetcherShape => {
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS
  const headersTimeout = options.headersTimeoutMs ?? 30_000
  const bodyTimeout = options.bodyIdleTimeoutMs ?? 30_000
  const totalTimeout = Duration.millis(options.totalTimeoutMs ?? 10 * Time.MINUTE_MS)

  const download = async (start: URL, maxBytes: number, path: string, signal: AbortSignal): Promise<Downloaded> => {
    const tooLarge = () =>
      new Files.ImportTooLarge({
        message: `the file is larger than the limit of ${Files.describeBytes(maxBytes)} for this kind`
      })
    let current = start
    for (let hop = 0; ; hop++) {
      const response = await request(current, {
        dispatcher: options.dispatcher,
        method: "GET",
        headers: { "user-agent": USER_AGENT, accept: "*/*" },
        signal,
        headersTimeout,
        bodyTimeout
      })
      if (REDIRECTS.has(response.statusCode)) {
        // Not read: destroying closes this one connection, and a redirect body is worthless.
        discard(response.body)
        const location = header(response.headers, "location")
        if (location === undefined)
          throw new Files.ImportSourceUnavailable({
            message: `the source answered ${response.statusCode} without a Location`
          })
        if (hop >= maxRedirects)
          throw new Files.ImportSourceUnavailable({ message: `the source redirected more than ${maxRedirects} times` })
        const next = URL.canParse(location, current) ? new URL(location, current) : undefined
        if (next === undefined)
          throw new Files.ImportSourceUnavailable({ message: `the source redirected to an invalid URL` })
        const checked = Files.checkImportUrl(next.href, options)
        if (Either.isLeft(checked)) {
          const e = checked.left
          throw e instanceof Files.ImportSourceRefused
            ? new Files.ImportSourceRefused({ message: `the source redirected to a refused address: ${e.message}` })
            : new Files.ImportSourceInvalid({ message: `the source redirected to an invalid URL: ${e.message}` })
        }
        current = checked.right
        continue
      }
      if (response.statusCode < 200 || response.statusCode >= 300) {
        discard(response.body)
        throw new Files.ImportSourceUnavailable({ message: `the source answered HTTP ${response.statusCode}` })
      }
      const declared = Number(header(response.headers, "content-length"))
      if (Number.isFinite(declared) && declared > maxBytes) {
        discard(response.body)
        throw tooLarge()
      }
      let size = 0
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length
          // Failing the pipeline destroys the response body, which closes the connection.
          if (size > maxBytes) callback(tooLarge())
          else callback(null, chunk)
        }
      })
      await pipeline(response.body, counter, createWriteStream(path, { flags: "wx" }))
      const contentType = header(response.headers, "content-type")?.split(";")[0]?.trim().toLowerCase()
      return { sizeBytes: size, finalUrl: current, contentType: contentType === "" ? undefined : contentType }
    }
  }

  return {
    fetch: ({ url, maxBytes }) =>
      Effect.gen(function* () {
        const path = yield* Effect.acquireRelease(
          Effect.promise(async () => {
            await mkdir(options.spoolDir, { recursive: true })
            return join(options.spoolDir, `${randomUUID()}.part`)
          }),
          // Gone already when the blob store moved it in.
          (p) => Effect.promise(() => rm(p, { force: true }))
        )
        const downloaded = yield* Effect.tryPromise({
          try: (signal) => download(url, maxBytes, path, signal),
          catch: classify
        }).pipe(
          Effect.timeoutFail({
            duration: totalTimeout,
            onTimeout: () =>
              new Files.ImportSourceUnavailable({
                message: `the download took longer than ${Duration.format(totalTimeout)}`
              })
          })
        )
        return {
          sizeBytes: downloaded.sizeBytes,
          stream: readFileStream(path),
          localPath: path,
          hints: { fileName: fileNameOf(downloaded.finalUrl), contentType: downloaded.contentType }
        }
      })
  }
}

/** Removes spool files a crashed process left behind (older than `olderThanMs`). */
export const sweepSpool = (spoolDir: string, olderThanMs = Time.HOUR_MS) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Effect.promise(async () => {
      const names = await readdir(spoolDir).catch(() => [] as Array<string>)
      for (const name of names) {
        const path = join(spoolDir, name)
        const info = await stat(path).catch(() => undefined)
        if (info !== undefined && now - info.mtimeMs > olderThanMs) await rm(path, { force: true })
      }
    })
  )

/** The fetcher over the process's shared guarded agent; sweeps stale spool files at start. */
export const layer = (
  options: Omit<HttpMediaFetcherOptions, "dispatcher" | "allowPrivateNetwork">
): Layer.Layer<Files.MediaFetcher, never, GuardedDispatcher.GuardedDispatcher> =>
  Layer.effect(
    Files.MediaFetcher,
    Effect.gen(function* () {
      const guarded = yield* GuardedDispatcher.GuardedDispatcher
      yield* sweepSpool(options.spoolDir)
      return make({
        ...options,
        dispatcher: guarded.dispatcher,
        allowPrivateNetwork: guarded.allowPrivateNetwork
      })
    })
  )

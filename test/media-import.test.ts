/**
 * Media import on a corpus of real files (test/fixtures/media, made by generate.sh there), served
 * by a local HTTPS server with a self-signed certificate. The dev flag (allowPrivateNetwork) lets
 * the importer reach localhost; TLS verification stays on, with the test certificate as an extra
 * trust anchor. Measured values are checked against how each file was generated.
 */
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { HostLookup } from "@frank/adapters"
import { Files } from "@frank/core"
import { Effect, Either, Stream } from "effect"
import { buildConnector } from "undici"
import { FilesRoot, filesEngine } from "./support/filesEngine.js"
import { fixture, type MediaServer, startMediaServer } from "./support/mediaServer.js"
import { testPartner } from "@frank/core/testing"

let server: MediaServer

beforeAll(async () => {
  server = await startMediaServer()
})
afterAll(async () => {
  await server?.close()
})

const MIB = 1024 * 1024

const importUrl = (kind: Files.FileKind, url: string) =>
  Effect.flatMap(Files.StoredFiles, (files) => Effect.either(files.importFile(testPartner("p_media"), { kind, url })))

const fixtureUrl = (name: string, query = "") => `${server.baseUrl}/fixtures/${name}${query}`

const expectImported = (
  result: Either.Either<Files.ImportedFile, { readonly code?: string; readonly message: string }>
): Files.ImportedFile => {
  if (Either.isLeft(result)) expect.fail(`import failed: ${result.left.code} ${result.left.message}`)
  return (result as Either.Right<never, Files.ImportedFile>).right
}

const expectCode = (
  result: Either.Either<unknown, { readonly code?: string; readonly message: string }>,
  code: string
) => {
  expect(Either.isLeft(result), `expected ${code}, got a stored file`).toBe(true)
  if (Either.isLeft(result)) {
    expect(result.left.code, result.left.message).toBe(code)
    expect(result.left.message.length).toBeGreaterThan(0)
  }
}

interface Truth {
  readonly file: string
  readonly kind: Files.FileKind
  readonly mimeType: string
  readonly width?: number
  readonly height?: number
  readonly durationSeconds?: number
  readonly fps?: number
  readonly pageCount?: number
  /** Encoders add priming/padding to compressed audio; the true length is what was generated. */
  readonly durationTolerance?: number
}

// The values follow from generate.sh: sizes, frame rates and lengths it asked the encoders for.
const corpus: ReadonlyArray<Truth> = [
  { file: "image.png", kind: "image", mimeType: "image/png", width: 320, height: 240 },
  // Stored 320x240 with EXIF Orientation 6: displayed rotated, 240 wide.
  { file: "image-exif-rotated.jpg", kind: "image", mimeType: "image/jpeg", width: 240, height: 320 },
  { file: "image.webp", kind: "image", mimeType: "image/webp", width: 200, height: 100 },
  { file: "image.gif", kind: "image", mimeType: "image/gif", width: 64, height: 48 },
  { file: "video.mp4", kind: "video", mimeType: "video/mp4", width: 320, height: 240, durationSeconds: 2, fps: 25 },
  {
    file: "video-moov-at-end.mp4",
    kind: "video",
    mimeType: "video/mp4",
    width: 320,
    height: 240,
    durationSeconds: 2,
    fps: 25
  },
  {
    file: "video-fragmented.mp4",
    kind: "video",
    mimeType: "video/mp4",
    width: 320,
    height: 240,
    durationSeconds: 2,
    fps: 25
  },
  // Rotation 90 in the track header: displayed 240x320.
  {
    file: "video-rotated.mp4",
    kind: "video",
    mimeType: "video/mp4",
    width: 240,
    height: 320,
    durationSeconds: 2,
    fps: 25
  },
  { file: "video.webm", kind: "video", mimeType: "video/webm", width: 320, height: 240, durationSeconds: 2, fps: 30 },
  // 60 frames at 30000/1001 fps = 2.002 s.
  {
    file: "video.mov",
    kind: "video",
    mimeType: "video/quicktime",
    width: 320,
    height: 240,
    durationSeconds: 2.002,
    fps: 29.97
  },
  { file: "audio.mp3", kind: "audio", mimeType: "audio/mpeg", durationSeconds: 3, durationTolerance: 0.1 },
  // No Xing/VBRI header: a bitrate estimate says ~8.9 s (ffprobe does); the true length is 5 s.
  { file: "audio-vbr-noxing.mp3", kind: "audio", mimeType: "audio/mpeg", durationSeconds: 5, durationTolerance: 0.1 },
  { file: "audio.wav", kind: "audio", mimeType: "audio/wav", durationSeconds: 2 },
  { file: "audio.ogg", kind: "audio", mimeType: "audio/ogg", durationSeconds: 3, durationTolerance: 0.05 },
  // Ogg Opus (voice messages): sniffed as "audio/ogg; codecs=opus", stored as audio/ogg like Vorbis.
  { file: "audio.opus", kind: "audio", mimeType: "audio/ogg", durationSeconds: 2, durationTolerance: 0.05 },
  { file: "audio.m4a", kind: "audio", mimeType: "audio/mp4", durationSeconds: 4, durationTolerance: 0.05 },
  // An MP4 with only an AAC track sniffs as video/mp4; by its tracks it is audio.
  { file: "audio-only.mp4", kind: "audio", mimeType: "audio/mp4", durationSeconds: 2, durationTolerance: 0.05 },
  { file: "document-3pages.pdf", kind: "document", mimeType: "application/pdf", pageCount: 3 },
  { file: "document.txt", kind: "document", mimeType: "text/plain" },
  { file: "document.md", kind: "document", mimeType: "text/markdown" }
]

const MEASUREMENT_FIELDS = ["width", "height", "durationSeconds", "fps", "pageCount"] as const

describe("import of the corpus over HTTPS", () => {
  const engine = () => filesEngine({ agent: { allowPrivateNetwork: true, ca: server.ca } })

  it.live(
    "stores every corpus file with its sniffed type, exact size and measurements",
    () =>
      Effect.gen(function* () {
        const root = yield* FilesRoot
        const files = yield* Files.StoredFiles
        for (const truth of corpus) {
          const imported = expectImported(yield* importUrl(truth.kind, fixtureUrl(truth.file)))
          const { file } = imported
          const label = truth.file
          expect(file.kind, label).toBe(truth.kind)
          expect(file.mimeType, label).toBe(truth.mimeType)
          expect(file.sizeBytes, label).toBe(fixture(truth.file).length)
          expect(file.id, label).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
          for (const field of MEASUREMENT_FIELDS) {
            const expected = truth[field]
            const actual = file.measurements[field]
            if (expected === undefined) expect(actual, `${label} ${field}`).toBeUndefined()
            else if (field === "durationSeconds")
              expect(Math.abs((actual ?? Number.NaN) - expected), `${label} ${field}=${actual}`).toBeLessThanOrEqual(
                truth.durationTolerance ?? 0.001
              )
            else expect(actual, `${label} ${field}`).toBe(expected)
          }
          // The URL is the host-served capability URL, and its token opens exactly these bytes.
          const token = imported.url.split("/").pop() ?? ""
          expect(imported.url).toBe(`https://frank.test/files/${file.id}/${token}`)
          const opened = yield* files.open(file.id, token)
          const chunks = yield* Stream.runCollect(opened.blob.stream)
          expect(Buffer.concat([...chunks]).equals(fixture(truth.file)), label).toBe(true)
          // On disk under the blob root, named by partner and id.
          expect(
            (yield* Effect.promise(() => readFile(join(root, "p_media", file.id)))).equals(fixture(truth.file)),
            label
          ).toBe(true)
        }
      }).pipe(Effect.provide(engine())),
    180_000
  )
})

describe("rejections of the corpus", () => {
  const engine = () => filesEngine({ agent: { allowPrivateNetwork: true, ca: server.ca } })
  const cases: ReadonlyArray<readonly [string, Files.FileKind, string, string]> = [
    ["an HTML page named .png", "image", "page-html.png", "IMPORT_FORMAT_UNSUPPORTED"],
    ["a PDF with a user password", "document", "document-encrypted.pdf", "IMPORT_PDF_ENCRYPTED"],
    ["a truncated PDF", "document", "document-truncated.pdf", "IMPORT_FILE_UNREADABLE"],
    ["Latin-1 text", "document", "document-latin1.txt", "IMPORT_TEXT_NOT_UTF8"],
    ["text with a NUL byte", "document", "document-nul.txt", "IMPORT_TEXT_NOT_UTF8"],
    ["a PNG as video", "video", "image.png", "IMPORT_KIND_MISMATCH"],
    ["a PNG as document", "document", "image.png", "IMPORT_KIND_MISMATCH"],
    ["an MP4 with a video track as audio", "audio", "video.mp4", "IMPORT_KIND_MISMATCH"],
    ["an audio-only MP4 as video", "video", "audio-only.mp4", "IMPORT_KIND_MISMATCH"],
    ["an M4A as video", "video", "audio.m4a", "IMPORT_KIND_MISMATCH"],
    ["an Ogg Opus file as video", "video", "audio.opus", "IMPORT_KIND_MISMATCH"],
    ["a PDF as image", "image", "document-3pages.pdf", "IMPORT_KIND_MISMATCH"],
    ["text as image", "image", "document.txt", "IMPORT_FORMAT_UNSUPPORTED"]
  ]
  it.live(
    "refuses each with its own code and stores nothing",
    () =>
      Effect.gen(function* () {
        const root = yield* FilesRoot
        for (const [label, kind, file, code] of cases) {
          const result = yield* importUrl(kind, fixtureUrl(file))
          expect(
            Either.isLeft(result) ? ("code" in result.left ? result.left.code : result.left._tag) : "stored",
            label
          ).toBe(code)
        }
        // Nothing but the (empty) spool and staging directories under the blob root.
        const { readdir } = yield* Effect.promise(() => import("node:fs/promises"))
        const left = (yield* Effect.promise(() => readdir(root))).filter((n) => !n.startsWith("."))
        expect(left).toEqual([])
        expect(yield* Effect.promise(() => readdir(join(root, ".spool")))).toEqual([])
      }).pipe(Effect.provide(engine())),
    120_000
  )

  it.live("takes TXT/MD by name or Content-Type only for text without a signature", () =>
    Effect.gen(function* () {
      // Served as text/plain under a name without extension: TXT.
      const plain = expectImported(
        yield* importUrl("document", `${server.baseUrl}/fixtures/document.txt?type=text/plain`)
      )
      expect(plain.file.mimeType).toBe("text/plain")
      // Named .md: Markdown, whatever the Content-Type.
      const md = expectImported(
        yield* importUrl("document", fixtureUrl("document.md", "?type=application/octet-stream"))
      )
      expect(md.file.mimeType).toBe("text/markdown")
      // A PDF served as text/plain is still a PDF (the signature wins).
      const pdf = expectImported(yield* importUrl("document", fixtureUrl("document-3pages.pdf", "?type=text/plain")))
      expect(pdf.file.mimeType).toBe("application/pdf")
      // HTML served as text/html under a .png name is no document either.
      expectCode(
        yield* importUrl("document", fixtureUrl("page-html.png", "?type=text/html")),
        "IMPORT_FORMAT_UNSUPPORTED"
      )
    }).pipe(Effect.provide(engine()))
  )
})

describe("size limits", () => {
  const engine = () => filesEngine({ agent: { allowPrivateNetwork: true, ca: server.ca } })
  const generated = (name: string, query: string) => `${server.baseUrl}/generated/${name}?${query}`
  const bodyOf = (query: string) => {
    const body = server.bodies.find((b) => b.path.endsWith(query))
    if (body === undefined) return expect.fail(`the server got no request for ${query}`)
    return body
  }

  it.live("refuses a Content-Length over the kind's limit before reading the body, and hangs up", () =>
    Effect.gen(function* () {
      const query = "mib=40&case=declared"
      expectCode(yield* importUrl("image", generated("image.png", query)), "IMPORT_TOO_LARGE")
      const body = bodyOf(query)
      yield* Effect.promise(() => body.done)
      expect(body.closedEarly).toBe(true)
      expect(body.finished).toBe(false)
      // Nothing near the 30 MiB limit went out: at most what socket buffers took before the close.
      expect(body.sent).toBeLessThan(30 * MIB)
    }).pipe(Effect.provide(engine()))
  )

  it.live("aborts a body without Content-Length as soon as it passes the limit", () =>
    Effect.gen(function* () {
      const query = "mib=64&cl=0&case=chunked"
      expectCode(yield* importUrl("image", generated("image.png", query)), "IMPORT_TOO_LARGE")
      const body = bodyOf(query)
      yield* Effect.promise(() => body.done)
      expect(body.closedEarly).toBe(true)
      expect(body.finished).toBe(false)
      expect(body.sent).toBeGreaterThan(30 * MIB)
      expect(body.sent).toBeLessThan(64 * MIB)
    }).pipe(Effect.provide(engine()))
  )

  it.live("applies each kind's own limit: 20 MiB for documents, 50 MiB for audio", () =>
    Effect.gen(function* () {
      expectCode(
        yield* importUrl("document", generated("document-3pages.pdf", "bytes=20971521&cl=0&case=doc")),
        "IMPORT_TOO_LARGE"
      )
      expectCode(yield* importUrl("audio", generated("audio.mp3", "bytes=52428801&case=audio")), "IMPORT_TOO_LARGE")
    }).pipe(Effect.provide(engine()))
  )

  it.live("accepts a file of exactly the limit", () =>
    Effect.gen(function* () {
      const imported = expectImported(
        yield* importUrl("image", generated("image.png", `bytes=${30 * MIB}&cl=0&case=exact`))
      )
      expect(imported.file.sizeBytes).toBe(30 * MIB)
      expect(imported.file.measurements).toEqual({ width: 320, height: 240 })
    }).pipe(Effect.provide(engine()))
  )
})

describe("downloads", () => {
  const engine = () => filesEngine({ agent: { allowPrivateNetwork: true, ca: server.ca } })

  it.live("follows redirects (relative and absolute) and names the file after the final URL", () =>
    Effect.gen(function* () {
      const chained = expectImported(yield* importUrl("image", `${server.baseUrl}/chain/3`))
      expect(chained.file.measurements).toEqual({ width: 320, height: 240 })
      // The final URL's name (.md) decides text; the first one had none.
      const target = encodeURIComponent(fixtureUrl("document.md"))
      const md = expectImported(yield* importUrl("document", `${server.baseUrl}/redirect?status=307&to=${target}`))
      expect(md.file.mimeType).toBe("text/markdown")
    }).pipe(Effect.provide(engine()))
  )

  it.live("reports unavailable sources: HTTP errors, too many redirects, a closed port, an untrusted certificate", () =>
    Effect.gen(function* () {
      expectCode(yield* importUrl("image", `${server.baseUrl}/status/404`), "IMPORT_SOURCE_UNAVAILABLE")
      expectCode(yield* importUrl("image", `${server.baseUrl}/status/503`), "IMPORT_SOURCE_UNAVAILABLE")
      expectCode(yield* importUrl("image", `${server.baseUrl}/chain/7`), "IMPORT_SOURCE_UNAVAILABLE")
      expectCode(
        yield* importUrl("image", `${server.baseUrl}/redirect?to=${encodeURIComponent("https://[oops")}`),
        "IMPORT_SOURCE_UNAVAILABLE"
      )
      expectCode(yield* importUrl("image", "https://localhost:1/image.png"), "IMPORT_SOURCE_UNAVAILABLE")
    }).pipe(Effect.provide(engine()))
  )

  it.live("verifies TLS: without the test CA the self-signed server is unavailable", () =>
    Effect.gen(function* () {
      const result = yield* importUrl("image", fixtureUrl("image.png"))
      expectCode(result, "IMPORT_SOURCE_UNAVAILABLE")
      if (Either.isLeft(result)) expect(result.left.message).toMatch(/certificate/i)
    }).pipe(Effect.provide(filesEngine({ agent: { allowPrivateNetwork: true } })))
  )

  it.live("gives up on a source slower than the download deadline", () =>
    Effect.gen(function* () {
      expectCode(yield* importUrl("image", fixtureUrl("image.png", "?delay=3000")), "IMPORT_SOURCE_UNAVAILABLE")
    }).pipe(Effect.provide(filesEngine({ agent: { allowPrivateNetwork: true, ca: server.ca }, totalTimeoutMs: 300 })))
  )

  it.live("queues imports beyond the concurrency bound instead of failing them", () =>
    Effect.gen(function* () {
      server.resetMaxInFlight()
      const results = yield* Effect.all(
        Array.from({ length: 6 }, (_, i) => importUrl("image", fixtureUrl("image.png", `?delay=200&queue=${i}`))),
        { concurrency: "unbounded" }
      )
      for (const r of results) expectImported(r)
      // Never more than two downloads at once (the server serves nothing else meanwhile).
      expect(server.maxInFlight()).toBeLessThanOrEqual(2)
    }).pipe(
      Effect.provide(filesEngine({ agent: { allowPrivateNetwork: true, ca: server.ca }, maxConcurrentImports: 2 }))
    )
  )

  it.live("measures videos imported in parallel correctly (mediainfo runs one analysis at a time)", () =>
    Effect.gen(function* () {
      const names = [
        "video.mp4",
        "video.mov",
        "video.webm",
        "video-rotated.mp4",
        "video-fragmented.mp4",
        "video-moov-at-end.mp4"
      ]
      const results = yield* Effect.all(
        names.map((n) => importUrl("video", fixtureUrl(n, "?parallel=1"))),
        { concurrency: "unbounded" }
      )
      const measured = results.map((r) => expectImported(r).file.measurements)
      expect(measured.map((m) => [m.width, m.height, m.fps])).toEqual([
        [320, 240, 25],
        [320, 240, 29.97],
        [320, 240, 30],
        [240, 320, 25],
        [320, 240, 25],
        [320, 240, 25]
      ])
    }).pipe(
      Effect.provide(filesEngine({ agent: { allowPrivateNetwork: true, ca: server.ca }, maxConcurrentImports: 6 }))
    )
  )
})

describe("SSRF guard on imports (dev flag off)", () => {
  /** Stands in for a public server: DNS answers this address, and the test dialer routes it to the local server. */
  const PUBLIC_IP = "93.184.216.34"
  const records: Record<string, ReadonlyArray<string>> = {
    "media.example.com": [PUBLIC_IP],
    "private.example.com": ["10.1.2.3"],
    "loopback.example.com": ["127.0.0.1"],
    "loopback6.example.com": ["::1"],
    "mapped.example.com": ["::ffff:127.0.0.1"],
    "metadata.example.com": ["169.254.169.254"],
    "cgnat.example.com": ["100.64.0.1"],
    "mixed.example.com": [PUBLIC_IP, "10.0.0.5"]
  }
  const lookups: Array<string> = []
  const dials: Array<string> = []
  const fakeDns: HostLookup = async (hostname) => {
    lookups.push(hostname)
    const answers = records[hostname]
    if (answers === undefined)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" })
    return answers.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
  }
  /**
   * Only the stand-in public address is dialled, to the local server; the socket then reports
   * that address as its peer (the guard's post-connect check sees what a real public server would
   * give). TLS is verified against the requested name with the test CA. Nothing else is reachable:
   * a dial anywhere else is a test failure, recorded in `dials`.
   */
  const standInDial = (): buildConnector.connector => {
    const real = buildConnector({ ca: server.ca })
    return (target, callback) => {
      dials.push(target.hostname)
      if (target.hostname !== PUBLIC_IP)
        return callback(new Error(`test dialer: ${target.hostname} is not reachable here`), null)
      real({ ...target, hostname: "127.0.0.1" }, (error, socket) => {
        if (error !== null) return callback(error, null)
        Object.defineProperty(socket, "remoteAddress", { value: PUBLIC_IP, configurable: true })
        callback(null, socket)
      })
    }
  }
  const guarded = () => filesEngine({ agent: { allowPrivateNetwork: false, lookup: fakeDns, dial: standInDial() } })
  const reset = () => {
    lookups.length = 0
    dials.length = 0
  }

  it.live("imports from a public name with the guard on (the control case)", () =>
    Effect.gen(function* () {
      reset()
      const imported = expectImported(
        yield* importUrl("image", `https://media.example.com:${server.port}/fixtures/image.png`)
      )
      expect(imported.file.measurements).toEqual({ width: 320, height: 240 })
      expect(dials).toEqual([PUBLIC_IP])
    }).pipe(Effect.provide(guarded()))
  )

  it.live("refuses IP literals and internal names in every notation, before resolving or connecting", () =>
    Effect.gen(function* () {
      reset()
      const connectionsBefore = server.connections()
      const p = server.port
      for (const url of [
        `https://localhost:${p}/fixtures/image.png`,
        `https://127.0.0.1:${p}/fixtures/image.png`,
        `https://[::1]:${p}/fixtures/image.png`,
        `https://[::ffff:127.0.0.1]:${p}/fixtures/image.png`,
        `https://2130706433:${p}/fixtures/image.png`,
        `https://0x7f.1:${p}/fixtures/image.png`,
        `https://10.0.0.1:${p}/fixtures/image.png`,
        "https://169.254.169.254/latest/meta-data/",
        "https://100.64.0.1/image.png",
        "https://metadata/computeMetadata/v1/",
        "https://db.internal/dump.png"
      ])
        expectCode(yield* importUrl("image", url), "IMPORT_SOURCE_REFUSED")
      expect(lookups).toEqual([])
      expect(dials).toEqual([])
      expect(server.connections()).toBe(connectionsBefore)
    }).pipe(Effect.provide(guarded()))
  )

  it.live("refuses names that resolve to non-public addresses, without connecting", () =>
    Effect.gen(function* () {
      reset()
      const names = [
        "private.example.com",
        "loopback.example.com",
        "loopback6.example.com",
        "mapped.example.com",
        "metadata.example.com",
        "cgnat.example.com",
        "mixed.example.com"
      ]
      for (const name of names) {
        const result = yield* importUrl("image", `https://${name}:${server.port}/fixtures/image.png`)
        expectCode(result, "IMPORT_SOURCE_REFUSED")
        if (Either.isLeft(result)) expect(result.left.message).toContain(name)
      }
      expect(lookups).toEqual(names)
      expect(dials).toEqual([])
    }).pipe(Effect.provide(guarded()))
  )

  it.live("re-checks every redirect target: literals, internal names, private resolutions and http are refused", () =>
    Effect.gen(function* () {
      reset()
      const p = server.port
      const via = (to: string) => `https://media.example.com:${p}/redirect?to=${encodeURIComponent(to)}`
      expectCode(yield* importUrl("image", via(`https://127.0.0.1:${p}/fixtures/image.png`)), "IMPORT_SOURCE_REFUSED")
      expectCode(yield* importUrl("image", via(`https://[::1]:${p}/fixtures/image.png`)), "IMPORT_SOURCE_REFUSED")
      expectCode(yield* importUrl("image", via(`https://localhost:${p}/fixtures/image.png`)), "IMPORT_SOURCE_REFUSED")
      expectCode(yield* importUrl("image", via("https://169.254.169.254/latest/meta-data/")), "IMPORT_SOURCE_REFUSED")
      expectCode(
        yield* importUrl("image", via(`https://private.example.com:${p}/fixtures/image.png`)),
        "IMPORT_SOURCE_REFUSED"
      )
      expectCode(
        yield* importUrl("image", via(`http://media.example.com:${p}/fixtures/image.png`)),
        "IMPORT_SOURCE_INVALID"
      )
      // Only the stand-in public address was ever dialled; private.example.com was resolved and refused.
      expect(new Set(dials)).toEqual(new Set([PUBLIC_IP]))
      expect(lookups).toContain("private.example.com")
    }).pipe(Effect.provide(guarded()))
  )

  it.live("refuses non-https URLs and URLs with credentials as invalid", () =>
    Effect.gen(function* () {
      reset()
      expectCode(
        yield* importUrl("image", `http://media.example.com:${server.port}/fixtures/image.png`),
        "IMPORT_SOURCE_INVALID"
      )
      expectCode(
        yield* importUrl("image", `https://user:pw@media.example.com:${server.port}/fixtures/image.png`),
        "IMPORT_SOURCE_INVALID"
      )
      expectCode(yield* importUrl("image", "ftp://media.example.com/image.png"), "IMPORT_SOURCE_INVALID")
      expectCode(yield* importUrl("image", "not a url"), "IMPORT_SOURCE_INVALID")
      expect(dials).toEqual([])
    }).pipe(Effect.provide(guarded()))
  )
})

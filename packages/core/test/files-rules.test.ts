/**
 * The pure rules of media import: limits, the import URL policy, the format decision (sniffed
 * bytes vs the requested kind), routing containers by their tracks, and which measurements a
 * stored file must carry. Also the StoredFiles service on memory ports: source selection and
 * re-import by id.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Redacted, Stream } from "effect"
import { StoredFileId } from "../src/EntityIds.js"
import { Ids } from "../src/Ids.js"
import { Secrets } from "../src/access/Secrets.js"
import { type FileKind, fileKinds } from "../src/files/FileKind.js"
import { finishMeasurements } from "../src/files/import/Measurements.js"
import {
  checkTracks,
  decideFormat,
  M4A,
  OGG,
  MD,
  MP4,
  MP4_AUDIO,
  mediaFormats,
  PDF,
  PNG,
  type Sniffed,
  TXT,
  WEBM,
  WEBM_AUDIO
} from "../src/files/import/MediaFormat.js"
import { StoredFileStore } from "../src/files/StoredFileStore.js"
import { sameToken } from "../src/files/StoredFileUrls.js"
import { StoredFiles } from "../src/files/StoredFiles.js"
import { checkImportUrl, isUuidV4 } from "../src/files/import/importUrl.js"
import {
  AUDIO_MAX_BYTES,
  BYTES_PER_MIB,
  DOCUMENT_MAX_BYTES,
  IMAGE_MAX_BYTES,
  maxBytesFor,
  VIDEO_MAX_BYTES
} from "../src/files/import/limits.js"
import { FilesOnMemory, testPartner } from "../src/testing/index.js"
import { type ScriptedFile, ScriptedMedia } from "../src/testing/files/ScriptedMedia.js"

const sniffed = (mimeType: string, extension = "x"): Sniffed => ({ mimeType, extension })
const codeOf = <A>(e: Either.Either<A, { readonly _tag: string; readonly code?: string }>) =>
  Either.isLeft(e) ? (e.left.code ?? e.left._tag) : "accepted"

describe("limits", () => {
  it("are the spec's sizes in MiB (2^20 bytes), per kind", () => {
    expect(BYTES_PER_MIB).toBe(1_048_576)
    expect(IMAGE_MAX_BYTES).toBe(31_457_280)
    expect(VIDEO_MAX_BYTES).toBe(104_857_600)
    expect(AUDIO_MAX_BYTES).toBe(52_428_800)
    expect(DOCUMENT_MAX_BYTES).toBe(20_971_520)
    expect(fileKinds.map(maxBytesFor)).toEqual([IMAGE_MAX_BYTES, VIDEO_MAX_BYTES, AUDIO_MAX_BYTES, DOCUMENT_MAX_BYTES])
  })
})

describe("import URL policy", () => {
  const strict = { allowPrivateNetwork: false }
  it("accepts public https and maps refusals to import codes", () => {
    expect(codeOf(checkImportUrl("https://cdn.example.com/a.png", strict))).toBe("accepted")
    const cases: Array<[string, string]> = [
      ["http://cdn.example.com/a.png", "IMPORT_SOURCE_INVALID"],
      ["https://u:p@cdn.example.com/a.png", "IMPORT_SOURCE_INVALID"],
      ["/relative.png", "IMPORT_SOURCE_INVALID"],
      ["https://localhost/a.png", "IMPORT_SOURCE_REFUSED"],
      ["https://127.0.0.1/a.png", "IMPORT_SOURCE_REFUSED"],
      ["https://[::1]/a.png", "IMPORT_SOURCE_REFUSED"],
      ["https://[::ffff:127.0.0.1]/a.png", "IMPORT_SOURCE_REFUSED"],
      ["https://2130706433/a.png", "IMPORT_SOURCE_REFUSED"],
      ["https://0x7f.1/a.png", "IMPORT_SOURCE_REFUSED"],
      ["https://10.1.2.3/a.png", "IMPORT_SOURCE_REFUSED"],
      ["https://169.254.169.254/latest/meta-data/", "IMPORT_SOURCE_REFUSED"],
      ["https://100.64.0.1/a.png", "IMPORT_SOURCE_REFUSED"],
      ["https://93.184.216.34/a.png", "IMPORT_SOURCE_REFUSED"],
      ["https://storage.internal/a.png", "IMPORT_SOURCE_REFUSED"]
    ]
    for (const [url, code] of cases) expect(codeOf(checkImportUrl(url, strict)), url).toBe(code)
  })
  it("the dev flag lets http and local hosts through", () => {
    expect(codeOf(checkImportUrl("http://127.0.0.1:8080/a.png", { allowPrivateNetwork: true }))).toBe("accepted")
  })
})

describe("format decision", () => {
  it("accepts every listed format for its own kind, and refuses it for every other kind as a mismatch", () => {
    for (const format of mediaFormats)
      for (const mime of format.sniffedAs)
        for (const kind of fileKinds) {
          const decided = decideFormat(kind, sniffed(mime), {})
          if (kind === format.kind) expect(Either.getOrThrow(decided), `${mime} as ${kind}`).toBe(format)
          else if (kind === "audio" && (format === MP4 || format === WEBM))
            expect(Either.getOrThrow(decided)).toBe(format === MP4 ? MP4_AUDIO : WEBM_AUDIO)
          else expect(codeOf(decided), `${mime} as ${kind}`).toBe("IMPORT_KIND_MISMATCH")
        }
  })
  it("stores M4A as audio/mp4 whatever the sniffer calls it", () => {
    expect(Either.getOrThrow(decideFormat("audio", sniffed("audio/x-m4a"), {}))).toBe(M4A)
    expect(M4A.mimeType).toBe("audio/mp4")
  })
  it("accepts Ogg Opus (sniffed with a codecs parameter) as Ogg audio", () => {
    expect(Either.getOrThrow(decideFormat("audio", sniffed("audio/ogg; codecs=opus"), {}))).toBe(OGG)
    expect(OGG.mimeType).toBe("audio/ogg")
  })
  it("refuses formats outside the list as unsupported, naming the accepted ones", () => {
    for (const [kind, mime] of [
      ["image", "image/bmp"],
      ["image", "image/svg+xml"],
      ["video", "video/x-msvideo"],
      ["document", "application/zip"],
      ["document", "application/x-msdownload"]
    ] as const) {
      const decided = decideFormat(kind, sniffed(mime), {})
      expect(codeOf(decided), mime).toBe("IMPORT_FORMAT_UNSUPPORTED")
      if (Either.isLeft(decided)) expect(decided.left.message).toContain(mime)
    }
  })
  it("takes text without a signature as TXT or MD by name or Content-Type, for documents only", () => {
    expect(Either.getOrThrow(decideFormat("document", undefined, { fileName: "notes.md" }))).toBe(MD)
    expect(Either.getOrThrow(decideFormat("document", undefined, { fileName: "NOTES.MARKDOWN" }))).toBe(MD)
    expect(Either.getOrThrow(decideFormat("document", undefined, { fileName: "a.txt" }))).toBe(TXT)
    expect(Either.getOrThrow(decideFormat("document", undefined, { fileName: "a", contentType: "text/plain" }))).toBe(
      TXT
    )
    expect(
      Either.getOrThrow(decideFormat("document", undefined, { fileName: "a", contentType: "text/markdown" }))
    ).toBe(MD)
    expect(codeOf(decideFormat("document", undefined, { fileName: "page.html", contentType: "text/html" }))).toBe(
      "IMPORT_FORMAT_UNSUPPORTED"
    )
    for (const kind of ["image", "video", "audio"] as const)
      expect(codeOf(decideFormat(kind, undefined, { fileName: "a.txt" }))).toBe("IMPORT_FORMAT_UNSUPPORTED")
    // A signature always wins over the name.
    expect(Either.getOrThrow(decideFormat("document", sniffed("application/pdf"), { fileName: "a.txt" }))).toBe(PDF)
    expect(codeOf(decideFormat("document", sniffed("image/png"), { fileName: "a.txt" }))).toBe("IMPORT_KIND_MISMATCH")
  })
})

describe("tracks", () => {
  const code = (format: typeof MP4, video: boolean, audio: boolean) => codeOf(checkTracks(format, { video, audio }))
  it("video needs a video track; audio from a video container must have audio and no video", () => {
    expect(code(MP4, true, true)).toBe("accepted")
    expect(code(MP4, true, false)).toBe("accepted")
    expect(code(MP4, false, true)).toBe("IMPORT_KIND_MISMATCH")
    expect(code(MP4_AUDIO, false, true)).toBe("accepted")
    expect(code(MP4_AUDIO, true, true)).toBe("IMPORT_KIND_MISMATCH")
    expect(code(MP4_AUDIO, false, false)).toBe("IMPORT_KIND_MISMATCH")
    // Formats measured otherwise are not routed by tracks.
    expect(code(M4A, false, false)).toBe("accepted")
  })
})

describe("measurements", () => {
  it("keeps each kind's fields, rounded to thousandths, and insists on the required ones", () => {
    expect(Either.getOrThrow(finishMeasurements(PNG, { width: 320, height: 240, durationSeconds: 3 }))).toEqual({
      width: 320,
      height: 240
    })
    expect(
      Either.getOrThrow(
        finishMeasurements(MP4, { width: 320, height: 240, durationSeconds: 2.0020001, fps: 29.97002997 })
      )
    ).toEqual({
      width: 320,
      height: 240,
      durationSeconds: 2.002,
      fps: 29.97
    })
    // A variable-rate video without a declared rate still stores.
    expect(Either.getOrThrow(finishMeasurements(MP4, { width: 2, height: 2, durationSeconds: 1 }))).toEqual({
      width: 2,
      height: 2,
      durationSeconds: 1
    })
    expect(Either.getOrThrow(finishMeasurements(M4A, { durationSeconds: 4.0232199, width: 1 }))).toEqual({
      durationSeconds: 4.023
    })
    expect(Either.getOrThrow(finishMeasurements(PDF, { pageCount: 3 }))).toEqual({ pageCount: 3 })
    expect(Either.getOrThrow(finishMeasurements(TXT, { pageCount: 3 }))).toEqual({})
    for (const [format, probed] of [
      [PNG, { width: 0, height: 10 }],
      [MP4, { width: 320, height: 240 }],
      [MP4, { durationSeconds: 2 }],
      [M4A, { durationSeconds: Number.NaN }],
      [PDF, {}]
    ] as const)
      expect(codeOf(finishMeasurements(format, probed)), format.name).toBe("IMPORT_FILE_UNREADABLE")
  })
})

describe("file URL tokens", () => {
  it("compare equal strings only", () => {
    expect(sameToken("abc", "abc")).toBe(true)
    expect(sameToken("abc", "abd")).toBe(false)
    expect(sameToken("abc", "ab")).toBe(false)
  })
})

// -----------------------------------------------------------------------------------------------
// The service on memory: records, blobs and scripted media sources (no network, no media tools).

const PNG_BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47])
const PNG_URL = "https://cdn.example.com/a.png"
const Engine = FilesOnMemory("https://files.example/").pipe(
  Layer.provideMerge(Layer.mergeAll(Ids.layer, Secrets.layer(Redacted.make("pepper"))))
)

const serve = (url: string, file: ScriptedFile) => Effect.flatMap(ScriptedMedia, (m) => m.serve(url, file))
const servePng = serve(PNG_URL, {
  bytes: PNG_BYTES,
  sniffed: { mimeType: "image/png", extension: "png" },
  probed: { width: 3, height: 2 }
})

describe("StoredFiles on memory", () => {
  const importAs = (partnerId: string, request: { kind: FileKind; url?: string; storedFileId?: string }) =>
    Effect.flatMap(StoredFiles, (s) => Effect.either(s.importFile(testPartner(partnerId), request)))

  it.effect("needs exactly one of url and storedFileId", () =>
    Effect.gen(function* () {
      yield* servePng
      expect(codeOf(yield* importAs("p1", { kind: "image" }))).toBe("IMPORT_SOURCE_INVALID")
      expect(codeOf(yield* importAs("p1", { kind: "image", url: PNG_URL, storedFileId: "x" }))).toBe(
        "IMPORT_SOURCE_INVALID"
      )
      expect(yield* Effect.flatMap(ScriptedMedia, (m) => m.fetched)).toEqual([])
    }).pipe(Effect.provide(Engine))
  )

  it.effect("imports by URL, then answers the same record by storedFileId, to its owner only", () =>
    Effect.gen(function* () {
      yield* servePng
      const first = Either.getOrThrow(yield* importAs("p1", { kind: "image", url: PNG_URL }))
      expect(isUuidV4(first.file.id)).toBe(true)
      expect(first.file).toMatchObject({
        partnerId: "p1",
        kind: "image",
        mimeType: "image/png",
        sizeBytes: 4,
        measurements: { width: 3, height: 2 }
      })
      expect(first.url).toMatch(new RegExp(`^https://files\\.example/files/${first.file.id}/[0-9a-f]{64}$`))
      const again = Either.getOrThrow(yield* importAs("p1", { kind: "image", storedFileId: first.file.id }))
      expect(again).toEqual(first)
      expect(codeOf(yield* importAs("p2", { kind: "image", storedFileId: first.file.id }))).toBe("FILE_NOT_FOUND")
      expect(codeOf(yield* importAs("p1", { kind: "video", storedFileId: first.file.id }))).toBe("IMPORT_KIND_MISMATCH")
      expect(codeOf(yield* importAs("p1", { kind: "image", storedFileId: "not-a-uuid" }))).toBe("IMPORT_SOURCE_INVALID")
      expect(
        codeOf(yield* importAs("p1", { kind: "image", storedFileId: "6f1c1a52-5d1b-4c8e-9a3e-2b7d9f0c1e2a" }))
      ).toBe("FILE_NOT_FOUND")
      const store = yield* StoredFileStore
      expect(yield* store.owns(testPartner("p1"), first.file.id)).toBe(true)
      expect(yield* store.owns(testPartner("p2"), first.file.id)).toBe(false)
      // The URL's token opens the file; any other token, or another id, does not.
      const files = yield* StoredFiles
      const token = first.url.split("/").pop() ?? ""
      const opened = yield* files.open(first.file.id, token)
      expect(opened.blob.sizeBytes).toBe(4)
      expect(Buffer.concat([...(yield* Stream.runCollect(opened.blob.stream))])).toEqual(Buffer.from(PNG_BYTES))
      expect(
        codeOf(
          yield* Effect.either(
            files.open(
              first.file.id,
              token.replace(/.$/, (c) => (c === "0" ? "1" : "0"))
            )
          )
        )
      ).toBe("FILE_NOT_FOUND")
      expect(
        codeOf(yield* Effect.either(files.open(StoredFileId.make("6f1c1a52-5d1b-4c8e-9a3e-2b7d9f0c1e2a"), token)))
      ).toBe("FILE_NOT_FOUND")
    }).pipe(Effect.provide(Engine))
  )

  it.effect("refuses a refused URL before fetching anything; reports missing sources and size", () =>
    Effect.gen(function* () {
      expect(codeOf(yield* importAs("p1", { kind: "image", url: "https://127.0.0.1/a.png" }))).toBe(
        "IMPORT_SOURCE_REFUSED"
      )
      expect(yield* Effect.flatMap(ScriptedMedia, (m) => m.fetched)).toEqual([])
      expect(codeOf(yield* importAs("p1", { kind: "image", url: "https://cdn.example.com/missing.png" }))).toBe(
        "IMPORT_SOURCE_UNAVAILABLE"
      )
      yield* serve("https://cdn.example.com/big.txt", { bytes: new Uint8Array(DOCUMENT_MAX_BYTES + 1).fill(0x61) })
      expect(codeOf(yield* importAs("p1", { kind: "document", url: "https://cdn.example.com/big.txt" }))).toBe(
        "IMPORT_TOO_LARGE"
      )
    }).pipe(Effect.provide(Engine))
  )

  it.effect("routes containers by tracks and checks text for UTF-8", () =>
    Effect.gen(function* () {
      const mp4 = { mimeType: "video/mp4", extension: "mp4" }
      yield* serve("https://cdn.example.com/voice.mp4", {
        bytes: new Uint8Array(8),
        sniffed: mp4,
        probed: { durationSeconds: 2.0231, tracks: { video: false, audio: true } }
      })
      const voice = Either.getOrThrow(
        yield* importAs("p1", { kind: "audio", url: "https://cdn.example.com/voice.mp4" })
      )
      expect(voice.file).toMatchObject({
        kind: "audio",
        mimeType: "audio/mp4",
        measurements: { durationSeconds: 2.023 }
      })
      expect(codeOf(yield* importAs("p1", { kind: "video", url: "https://cdn.example.com/voice.mp4" }))).toBe(
        "IMPORT_KIND_MISMATCH"
      )
      yield* serve("https://cdn.example.com/notes.md", { bytes: new TextEncoder().encode("# Привет") })
      expect(
        Either.getOrThrow(yield* importAs("p1", { kind: "document", url: "https://cdn.example.com/notes.md" })).file
          .mimeType
      ).toBe("text/markdown")
      yield* serve("https://cdn.example.com/latin1.txt", { bytes: new Uint8Array([0x63, 0x61, 0x66, 0xe9]) })
      expect(codeOf(yield* importAs("p1", { kind: "document", url: "https://cdn.example.com/latin1.txt" }))).toBe(
        "IMPORT_TEXT_NOT_UTF8"
      )
    }).pipe(Effect.provide(Engine))
  )
})

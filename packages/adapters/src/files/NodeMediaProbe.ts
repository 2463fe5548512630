/**
 * The MediaProbe on Node: sniffing and measuring a spooled file with the pinned tools (see
 * docs/decisions.md, "Media import"). Tool failures on the file's content become typed import
 * errors; failures to read our own spool are defects (500).
 */
import {
  ImportFileUnreadable,
  ImportPdfEncrypted,
  ImportTextNotUtf8,
  MediaProbe,
  type MediaProbeShape,
  type Probed,
  type SpooledMedia
} from "@frank/core"
import { Effect, Layer } from "effect"
import { checkUtf8Text } from "./checkText.js"
import { type MediaInfoAnalyzer, makeMediaInfoAnalyzer } from "./MediaInfoAnalyzer.js"
import { measureAudioDuration } from "./measureAudio.js"
import { measureImage } from "./measureImage.js"
import { measurePdf } from "./measurePdf.js"
import { videoFromTracks } from "./measureVideo.js"
import { sniffFile } from "./sniff.js"

const localPathOf = (media: SpooledMedia) =>
  media.localPath === undefined
    ? Effect.dieMessage("NodeMediaProbe needs a spooled file (SpooledMedia.localPath)")
    : Effect.succeed(media.localPath)

const describe = (e: unknown) => (e instanceof Error ? e.message : String(e))

export const makeNodeMediaProbe = (mediainfo: MediaInfoAnalyzer): MediaProbeShape => {
  const unreadable = (name: string) => (e: unknown) =>
    new ImportFileUnreadable({ message: `the ${name} file is damaged or truncated: ${describe(e)}` })
  return {
    sniff: (media) => Effect.flatMap(localPathOf(media), (path) => Effect.promise(() => sniffFile(path))),
    measure: (media, format) =>
      Effect.gen(function* () {
        const path = yield* localPathOf(media)
        switch (format.measure) {
          case "image":
            return yield* Effect.tryPromise({ try: () => measureImage(path), catch: unreadable(format.name) })
          case "video":
            return videoFromTracks(
              yield* Effect.mapError(mediainfo.analyze(path, media.sizeBytes), unreadable(format.name))
            )
          case "audio": {
            const durationSeconds = yield* Effect.tryPromise({
              try: () => measureAudioDuration(path, media.sizeBytes, format.mimeType),
              catch: unreadable(format.name)
            })
            return { durationSeconds } satisfies Probed
          }
          case "pdf": {
            const result = yield* Effect.promise(() => measurePdf(path))
            if (result._tag === "Encrypted")
              return yield* new ImportPdfEncrypted({
                message: "the PDF is password-protected; upload it without a password"
              })
            if (result._tag === "Unreadable")
              return yield* new ImportFileUnreadable({ message: `the PDF cannot be opened: ${result.reason}` })
            return { pageCount: result.pageCount } satisfies Probed
          }
          case "text": {
            const verdict = yield* Effect.promise(() => checkUtf8Text(path))
            if (verdict._tag === "Invalid")
              return yield* new ImportTextNotUtf8({
                message: `the ${format.name} file must be UTF-8 text: ${verdict.reason}`
              })
            return {} satisfies Probed
          }
        }
      })
  }
}

/** The probe with its own mediainfo instance, released with the layer. */
export const NodeMediaProbe: Layer.Layer<MediaProbe> = Layer.scoped(
  MediaProbe,
  Effect.map(makeMediaInfoAnalyzer, makeNodeMediaProbe)
)

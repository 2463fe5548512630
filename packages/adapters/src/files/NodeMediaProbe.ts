/**
 * The MediaProbe on Node: sniffing and measuring a spooled file with the pinned tools (see
 * docs/decisions.md, "Media import"). Tool failures on the file's content become typed import
 * errors; failures to read our own spool, and a tool's optional package not installed, are
 * defects (500): neither is the file's fault.
 */
import { Files } from "@frank/core"
import { Effect, Layer } from "effect"
import { MissingPackageError } from "../node/internal/optionalPackage.js"
import { checkUtf8Text } from "./internal/checkText.js"
import * as MediaInfoAnalyzer from "./internal/MediaInfoAnalyzer.js"
import { measureAudioDuration } from "./internal/measureAudio.js"
import { measureImage } from "./internal/measureImage.js"
import { measurePdf } from "./internal/measurePdf.js"
import { videoFromTracks } from "./internal/measureVideo.js"
import { sniffFile } from "./internal/sniff.js"

const localPathOf = (media: Files.SpooledMedia) =>
  media.localPath === undefined
    ? Effect.dieMessage("NodeMediaProbe needs a spooled file (SpooledMedia.localPath)")
    : Effect.succeed(media.localPath)

const describe = (e: unknown) => (e instanceof Error ? e.message : String(e))

export const make = (mediainfo: MediaInfoAnalyzer.MediaInfoAnalyzer): Files.MediaProbeShape => {
  const unreadable = (name: string) => (e: unknown) =>
    e instanceof MissingPackageError
      ? Effect.die(e)
      : Effect.fail(
          new Files.ImportFileUnreadable({ message: `the ${name} file is damaged or truncated: ${describe(e)}` })
        )
  const attempt = <A>(run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: (e) => e })
  return {
    sniff: (media) => Effect.flatMap(localPathOf(media), (path) => Effect.promise(() => sniffFile(path))),
    measure: (media, format) =>
      Effect.gen(function* () {
        const path = yield* localPathOf(media)
        switch (format.measure) {
          case "image":
            return yield* attempt(() => measureImage(path)).pipe(Effect.catchAll(unreadable(format.name)))
          case "video":
            return videoFromTracks(
              yield* Effect.catchAll(mediainfo.analyze(path, media.sizeBytes), unreadable(format.name))
            )
          case "audio": {
            const durationSeconds = yield* attempt(() =>
              measureAudioDuration(path, media.sizeBytes, format.mimeType)
            ).pipe(Effect.catchAll(unreadable(format.name)))
            return { durationSeconds } satisfies Files.Probed
          }
          case "pdf": {
            const result = yield* Effect.promise(() => measurePdf(path))
            if (result._tag === "Encrypted")
              return yield* new Files.ImportPdfEncrypted({
                message: "the PDF is password-protected; upload it without a password"
              })
            if (result._tag === "Unreadable")
              return yield* new Files.ImportFileUnreadable({ message: `the PDF cannot be opened: ${result.reason}` })
            return { pageCount: result.pageCount } satisfies Files.Probed
          }
          case "text": {
            const verdict = yield* Effect.promise(() => checkUtf8Text(path))
            if (verdict._tag === "Invalid")
              return yield* new Files.ImportTextNotUtf8({
                message: `the ${format.name} file must be UTF-8 text: ${verdict.reason}`
              })
            return {} satisfies Files.Probed
          }
        }
      })
  }
}

/** The probe with its own mediainfo instance, released with the layer. */
export const layer: Layer.Layer<Files.MediaProbe> = Layer.scoped(
  Files.MediaProbe,
  Effect.map(MediaInfoAnalyzer.make, make)
)

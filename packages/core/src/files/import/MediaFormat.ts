/**
 * The formats Frank accepts, and the pure rules that decide from the sniffed bytes (never from
 * the file name or Content-Type alone) whether an import of a given kind may go on.
 *
 * Sniffing answers for binary formats only: plain text has no signature, so TXT and MD are
 * recognised by the source's name or Content-Type and then proven by a strict UTF-8 check.
 * MP4 and WebM containers sniff as video even when they hold only audio; they are routed by their
 * tracks after measuring (`checkTracks`).
 */
import { Either } from "effect"
import type { FileKind } from "../FileKind.js"
import { ImportFormatUnsupported, ImportKindMismatch } from "./ImportError.js"

/** How a format is measured (which tool, which fields). */
export type Measure = "image" | "video" | "audio" | "pdf" | "text"

export interface MediaFormat {
  /** Short name for messages and logs. */
  readonly name: string
  readonly kind: FileKind
  /** The MIME type Frank stores and serves the file with. */
  readonly mimeType: string
  readonly measure: Measure
  /** MIME types the sniffer reports for it. */
  readonly sniffedAs: ReadonlyArray<string>
}

const format = (
  name: string,
  kind: FileKind,
  mimeType: string,
  measure: Measure,
  sniffedAs: ReadonlyArray<string> = [mimeType]
): MediaFormat => ({
  name,
  kind,
  mimeType,
  measure,
  sniffedAs
})

export const PNG = format("PNG", "image", "image/png", "image")
export const JPEG = format("JPEG", "image", "image/jpeg", "image")
export const WEBP = format("WebP", "image", "image/webp", "image")
export const GIF = format("GIF", "image", "image/gif", "image")
export const MP4 = format("MP4", "video", "video/mp4", "video", ["video/mp4", "video/x-m4v"])
export const QUICKTIME = format("MOV", "video", "video/quicktime", "video")
export const WEBM = format("WebM", "video", "video/webm", "video")
export const MP3 = format("MP3", "audio", "audio/mpeg", "audio")
export const WAV = format("WAV", "audio", "audio/wav", "audio", ["audio/wav", "audio/vnd.wave", "audio/x-wav"])
/** Vorbis, FLAC or Speex in Ogg sniff as audio/ogg; Opus (voice messages) carries a codecs parameter. */
export const OGG = format("Ogg", "audio", "audio/ogg", "audio", ["audio/ogg", "audio/ogg; codecs=opus"])
export const M4A = format("M4A", "audio", "audio/mp4", "audio", ["audio/x-m4a", "audio/mp4"])
export const FLAC = format("FLAC", "audio", "audio/flac", "audio", ["audio/x-flac", "audio/flac"])
export const AAC = format("AAC", "audio", "audio/aac", "audio")
/** Audio in a container that sniffs as video: measured like video, stored as audio. */
export const MP4_AUDIO = format("MP4 (audio only)", "audio", "audio/mp4", "video", [])
export const WEBM_AUDIO = format("WebM (audio only)", "audio", "audio/webm", "video", [])
export const PDF = format("PDF", "document", "application/pdf", "pdf")
export const TXT = format("TXT", "document", "text/plain", "text", [])
export const MD = format("MD", "document", "text/markdown", "text", [])

export const mediaFormats: ReadonlyArray<MediaFormat> = [
  PNG,
  JPEG,
  WEBP,
  GIF,
  MP4,
  QUICKTIME,
  WEBM,
  MP3,
  WAV,
  OGG,
  M4A,
  FLAC,
  AAC,
  PDF
]

/** Containers whose audio-only variant is accepted as audio. */
const audioVariantOf = new Map<MediaFormat, MediaFormat>([
  [MP4, MP4_AUDIO],
  [WEBM, WEBM_AUDIO]
])

/** The sniffer's verdict: a MIME type, or undefined when no signature matched (text, HTML, garbage). */
export interface Sniffed {
  readonly mimeType: string
  readonly extension: string
}

/** What the source says about itself; trusted only for plain text, which has no signature. */
export interface SourceHints {
  /** Last path segment of the final URL, e.g. `notes.md`. */
  readonly fileName?: string | undefined
  /** Content-Type without parameters, lower case. */
  readonly contentType?: string | undefined
}

const namesOf = (kind: FileKind): string =>
  kind === "document"
    ? "PDF, TXT, MD"
    : mediaFormats
        .filter((f) => f.kind === kind)
        .map((f) => f.name)
        .join(", ")

const article = (kind: FileKind) => (kind === "image" || kind === "audio" ? `an ${kind}` : `a ${kind}`)

const textFormatFromHints = (hints: SourceHints): MediaFormat | undefined => {
  const name = hints.fileName?.toLowerCase() ?? ""
  if (name.endsWith(".md") || name.endsWith(".markdown") || hints.contentType === "text/markdown") return MD
  if (name.endsWith(".txt") || hints.contentType === "text/plain") return TXT
  return undefined
}

/**
 * The format an import of `kind` goes on with, or why it stops: a sniffed format of another kind
 * is a mismatch; bytes no accepted format matches are unsupported.
 */
export const decideFormat = (
  kind: FileKind,
  sniffed: Sniffed | undefined,
  hints: SourceHints
): Either.Either<MediaFormat, ImportFormatUnsupported | ImportKindMismatch> => {
  if (sniffed === undefined) {
    const text = kind === "document" ? textFormatFromHints(hints) : undefined
    if (text !== undefined) return Either.right(text)
    return Either.left(
      new ImportFormatUnsupported({
        message:
          kind === "document"
            ? "the file is not a PDF, and not named or served as .txt/.md text; accepted documents: PDF, TXT, MD"
            : `the file is not a recognised ${kind} format (no known signature in its first bytes); accepted: ${namesOf(kind)}`
      })
    )
  }
  const found = mediaFormats.find((f) => f.sniffedAs.includes(sniffed.mimeType))
  if (found === undefined)
    return Either.left(
      new ImportFormatUnsupported({
        message: `the file is ${sniffed.mimeType}, which is not accepted; accepted ${kind} formats: ${namesOf(kind)}`
      })
    )
  if (found.kind === kind) return Either.right(found)
  const audio = kind === "audio" ? audioVariantOf.get(found) : undefined
  if (audio !== undefined) return Either.right(audio)
  return Either.left(
    new ImportKindMismatch({ message: `the file is ${article(found.kind)} (${found.name}), not ${article(kind)}` })
  )
}

/** Which kinds of tracks a measured container holds. */
export interface Tracks {
  readonly video: boolean
  readonly audio: boolean
}

/**
 * After measuring a container: video needs a video track; audio taken from a video container
 * must have no video track (that file is a video).
 */
export const checkTracks = (format: MediaFormat, tracks: Tracks): Either.Either<MediaFormat, ImportKindMismatch> => {
  if (format.kind === "video" && !tracks.video)
    return Either.left(
      new ImportKindMismatch({
        message: `the ${format.name} file has no video track${tracks.audio ? " (it is audio only; import it as audio)" : ""}`
      })
    )
  if (format.kind === "audio" && format.measure === "video" && tracks.video)
    return Either.left(
      new ImportKindMismatch({
        message: `the ${format.name.replace(" (audio only)", "")} file has a video track; import it as video`
      })
    )
  if (format.kind === "audio" && format.measure === "video" && !tracks.audio)
    return Either.left(
      new ImportKindMismatch({ message: `the ${format.name.replace(" (audio only)", "")} file has no audio track` })
    )
  return Either.right(format)
}

/**
 * What import measures, by kind (spec "Stored file"): width/height for images and video (as
 * displayed: EXIF orientation and rotation metadata applied), durationSeconds and fps for video,
 * durationSeconds for audio, pageCount for PDF. Text has none.
 */
import { Either } from "effect"
import { ImportFileUnreadable } from "./ImportError.js"
import type { MediaFormat } from "./MediaFormat.js"

/** What probing a media file found: dimensions, duration, page count. */
export interface Measurements {
  readonly width?: number | undefined
  readonly height?: number | undefined
  readonly durationSeconds?: number | undefined
  readonly fps?: number | undefined
  readonly pageCount?: number | undefined
}

/** Three decimals: milliseconds of duration, thousandths of a frame rate (29.97 stays 29.97). */
export const round3 = (n: number): number => Math.round(n * 1000) / 1000

const positive = (n: number | undefined): n is number => n !== undefined && Number.isFinite(n) && n > 0

/**
 * Keeps the fields the format's kind carries and insists on the ones it must have: a file whose
 * tool could not find them is damaged (or not what it claims).
 */
export const finishMeasurements = (
  format: MediaFormat,
  probed: Measurements
): Either.Either<Measurements, ImportFileUnreadable> => {
  const unreadable = (what: string) =>
    Either.left(new ImportFileUnreadable({ message: `the ${format.name} file is damaged or truncated: ${what}` }))
  const dims = () =>
    positive(probed.width) && positive(probed.height)
      ? { width: Math.round(probed.width), height: Math.round(probed.height) }
      : undefined
  switch (format.kind) {
    case "image": {
      const d = dims()
      return d === undefined ? unreadable("no image dimensions") : Either.right(d)
    }
    case "video": {
      const d = dims()
      if (d === undefined) return unreadable("no frame dimensions")
      if (!positive(probed.durationSeconds)) return unreadable("no duration")
      return Either.right({
        ...d,
        durationSeconds: round3(probed.durationSeconds),
        ...(positive(probed.fps) ? { fps: round3(probed.fps) } : {})
      })
    }
    case "audio":
      return positive(probed.durationSeconds)
        ? Either.right({ durationSeconds: round3(probed.durationSeconds) })
        : unreadable("no duration")
    case "document":
      if (format.measure !== "pdf") return Either.right({})
      return positive(probed.pageCount) ? Either.right({ pageCount: probed.pageCount }) : unreadable("no pages")
  }
}

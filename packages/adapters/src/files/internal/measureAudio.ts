/**
 * Audio duration with music-metadata. The quick pass reads headers (Xing/VBRI/Info frames, WAV
 * and Ogg headers, MP4 atoms). An MP3 without such a header (VBR written by some encoders) has no
 * duration there; then the whole file is scanned frame by frame. The scan streams the spool in
 * 1 MiB chunks: a file stream with tiny reads (parseFile) is an order of magnitude slower.
 */
import { createReadStream } from "node:fs"
import { importOptional } from "../../node/internal/optionalPackage.js"

const CHUNK_BYTES = 1024 * 1024

const durationOf = async (
  path: string,
  sizeBytes: number,
  mimeType: string,
  fullScan: boolean
): Promise<number | undefined> => {
  // Loaded on the first audio import, not at start (lean host, docs/performance.md).
  const { parseStream } = await importOptional("music-metadata", "Measuring audio", () => import("music-metadata"))
  const stream = createReadStream(path, { highWaterMark: CHUNK_BYTES })
  try {
    const metadata = await parseStream(
      stream,
      { size: sizeBytes, mimeType },
      { duration: fullScan, skipCovers: true, skipPostHeaders: true }
    )
    return metadata.format.duration
  } finally {
    stream.destroy()
  }
}

export const measureAudioDuration = async (
  path: string,
  sizeBytes: number,
  mimeType: string
): Promise<number | undefined> => {
  const quick = await durationOf(path, sizeBytes, mimeType, false)
  if (quick !== undefined && quick > 0) return quick
  return durationOf(path, sizeBytes, mimeType, true)
}

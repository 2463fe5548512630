/**
 * Import size limits (spec "Limits": image 30 MiB, video 100 MiB, audio 50 MiB, PDF/TXT/MD
 * 20 MiB). Sizes are bytes; MiB is 2^20 bytes, as the spec writes it.
 */
import type { FileKind } from "../FileKind.js"

export const BYTES_PER_MIB = 1024 * 1024

export const IMAGE_MAX_BYTES = 30 * BYTES_PER_MIB
/** The largest video file accepted, in bytes. */
export const VIDEO_MAX_BYTES = 100 * BYTES_PER_MIB
export const AUDIO_MAX_BYTES = 50 * BYTES_PER_MIB
/** PDF, TXT and MD alike. */
export const DOCUMENT_MAX_BYTES = 20 * BYTES_PER_MIB

const maxBytesByKind: Readonly<Record<FileKind, number>> = {
  image: IMAGE_MAX_BYTES,
  video: VIDEO_MAX_BYTES,
  audio: AUDIO_MAX_BYTES,
  document: DOCUMENT_MAX_BYTES
}

/** The most bytes a file of this kind may have; one byte more is refused. */
export const maxBytesFor = (kind: FileKind): number => maxBytesByKind[kind]

/** "30 MiB" for messages. */
export const describeBytes = (bytes: number): string =>
  bytes % BYTES_PER_MIB === 0 ? `${bytes / BYTES_PER_MIB} MiB` : `${(bytes / BYTES_PER_MIB).toFixed(1)} MiB`

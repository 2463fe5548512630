/**
 * Format by signature (file-type): reads only what the signature needs from the spool file, so an
 * MP3 behind a large ID3 tag is still found. Plain text, HTML and unknown bytes give undefined.
 */
import type { Sniffed } from "@frank/core"

export const sniffFile = async (path: string): Promise<Sniffed | undefined> => {
  // file-type (about 11 MiB) loads on the first import, not at start.
  const { fileTypeFromFile } = await import("file-type")
  const found = await fileTypeFromFile(path)
  return found === undefined ? undefined : { mimeType: found.mime, extension: found.ext }
}

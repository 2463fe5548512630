/**
 * Format by signature (file-type): reads only what the signature needs from the spool file, so an
 * MP3 behind a large ID3 tag is still found. Plain text, HTML and unknown bytes give undefined.
 */
import type { Sniffed } from "@frank/core"
import { fileTypeFromFile } from "file-type"

export const sniffFile = async (path: string): Promise<Sniffed | undefined> => {
  const found = await fileTypeFromFile(path)
  return found === undefined ? undefined : { mimeType: found.mime, extension: found.ext }
}

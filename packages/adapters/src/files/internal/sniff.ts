/**
 * Format by signature (file-type): reads only what the signature needs from the spool file, so an
 * MP3 behind a large ID3 tag is still found. Plain text, HTML and unknown bytes give undefined.
 */
import type { Files } from "@frank/core"
import { importOptional } from "../../node/internal/optionalPackage.js"

export const sniffFile = async (path: string): Promise<Files.Sniffed | undefined> => {
  // file-type (about 11 MiB) loads on the first import, not at start.
  const { fileTypeFromFile } = await importOptional("file-type", "Importing files", () => import("file-type"))
  const found = await fileTypeFromFile(path)
  return found === undefined ? undefined : { mimeType: found.mime, extension: found.ext }
}

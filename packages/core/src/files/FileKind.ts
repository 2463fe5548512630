/**
 * What a partner says a file is when importing it: the spec's four kinds. The kind picks the size
 * limit and the formats accepted; the bytes must then agree with it.
 */
import { Schema } from "effect"

/** The kinds of stored file: image, video, audio, document. */
export const FileKind = Schema.Literal("image", "video", "audio", "document").annotations({
  identifier: "FileKind",
  description: "image, video, audio or document (PDF, TXT, MD)"
})
export type FileKind = typeof FileKind.Type

export const fileKinds: ReadonlyArray<FileKind> = FileKind.literals

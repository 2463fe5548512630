/**
 * Media import through Promises: a file fetched from a URL (or given as a stored file id), probed
 * and kept; `open` resolves a signed file URL's id and token.
 */
import { Files } from "@frank/core"
import { type Context, Effect } from "effect"
import { ids } from "./ids.js"
import { withPartner, withService } from "./partner.js"
import type { Run } from "./run.js"

type Service = Context.Tag.Service<typeof Files.StoredFiles>
/** What to import: a source URL and the kind of media expected. */
export type ImportRequest = Parameters<Service["importFile"]>[1]
/** A stored file's bytes and media type. */
export type OpenedFile = Effect.Effect.Success<ReturnType<Service["open"]>>

/** Stored files of a partner. */
export interface FrankFiles {
  /** Fetches, checks and keeps a media file; IMPORT_* codes name what was wrong with the source. */
  import(partnerId: string, request: ImportRequest): Promise<Files.ImportedFile>
  /** The file behind a signed URL's id and token; STORED_FILE_NOT_FOUND for a wrong token too. */
  open(fileId: string, token: string): Promise<OpenedFile>
}

/** The files API over `run`. */
export const makeFilesApi = (run: Run): FrankFiles => {
  const use = withPartner(run, Files.StoredFiles)
  const service = withService(run, Files.StoredFiles)
  return {
    import: (partnerId, request) => use(partnerId, (f, id) => f.importFile(id, request)),
    open: (fileId, token) => service((f) => Effect.flatMap(ids.file(fileId), (id) => f.open(id, token)))
  }
}

/**
 * Typed failures of media import. The spec answers all of them with 400 ("invalid source,
 * unavailable file, unsupported format or size"); each has its own machine code so an integration
 * can tell "fix the URL" from "the file is too big" from "that file is not a PDF".
 */
import { Schema } from "effect"
import { codedErrorFields } from "../../codedError.js"

const fields = codedErrorFields

/** Malformed request source: not an absolute https URL, credentials in it, both or neither of url/storedFileId, a storedFileId that is no UUID v4. */
export class ImportSourceInvalid extends Schema.TaggedError<ImportSourceInvalid>()(
  "ImportSourceInvalid",
  fields("IMPORT_SOURCE_INVALID", 400)
) {}
/**
 * The URL (or a redirect) leads to an IP literal, an internal host name, a non-public address, or
 * a name that does not resolve at all (refused alike, so the answer cannot tell a partner which
 * internal names exist; docs/decisions.md, dial-time guard).
 */
export class ImportSourceRefused extends Schema.TaggedError<ImportSourceRefused>()(
  "ImportSourceRefused",
  fields("IMPORT_SOURCE_REFUSED", 400)
) {}
/** The source could not be downloaded: a failed DNS lookup (not a missing name), connection, TLS, a non-2xx answer, too many redirects, too slow. */
export class ImportSourceUnavailable extends Schema.TaggedError<ImportSourceUnavailable>()(
  "ImportSourceUnavailable",
  fields("IMPORT_SOURCE_UNAVAILABLE", 400)
) {}
/** The bytes are no format Frank accepts for any kind (or an unknown binary). */
export class ImportFormatUnsupported extends Schema.TaggedError<ImportFormatUnsupported>()(
  "ImportFormatUnsupported",
  fields("IMPORT_FORMAT_UNSUPPORTED", 400)
) {}
/** The bytes are a supported format of another kind (a PNG imported as video, an audio-only MP4 as video). */
export class ImportKindMismatch extends Schema.TaggedError<ImportKindMismatch>()(
  "ImportKindMismatch",
  fields("IMPORT_KIND_MISMATCH", 400)
) {}
/** More bytes than the kind allows, announced by Content-Length or counted while streaming. */
export class ImportTooLarge extends Schema.TaggedError<ImportTooLarge>()(
  "ImportTooLarge",
  fields("IMPORT_TOO_LARGE", 400)
) {}
/** A PDF that needs a password to open. */
export class ImportPdfEncrypted extends Schema.TaggedError<ImportPdfEncrypted>()(
  "ImportPdfEncrypted",
  fields("IMPORT_PDF_ENCRYPTED", 400)
) {}
/** A TXT or MD file that is not valid UTF-8 or contains NUL bytes. */
export class ImportTextNotUtf8 extends Schema.TaggedError<ImportTextNotUtf8>()(
  "ImportTextNotUtf8",
  fields("IMPORT_TEXT_NOT_UTF8", 400)
) {}
/** The format was recognised but the file cannot be read to the end: truncated or damaged. */
export class ImportFileUnreadable extends Schema.TaggedError<ImportFileUnreadable>()(
  "ImportFileUnreadable",
  fields("IMPORT_FILE_UNREADABLE", 400)
) {}
/** No stored file with this id belongs to the partner (a foreign id answers the same). */
export class StoredFileNotFound extends Schema.TaggedError<StoredFileNotFound>()(
  "StoredFileNotFound",
  fields("FILE_NOT_FOUND", 400)
) {}

/** What fetching a source can fail with. */
export type FetchError = ImportSourceInvalid | ImportSourceRefused | ImportSourceUnavailable | ImportTooLarge

/** What inspecting the bytes can fail with. */
export type InspectError =
  | ImportFormatUnsupported
  | ImportKindMismatch
  | ImportPdfEncrypted
  | ImportTextNotUtf8
  | ImportFileUnreadable

export type ImportError = FetchError | InspectError | StoredFileNotFound

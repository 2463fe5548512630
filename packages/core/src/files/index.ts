/**
 * The `Files` namespace: stored files (uploads and URL imports), their kinds and limits, media
 * probing and measuring, and the blob and file stores behind them.
 */
export { FileKind } from "./FileKind.js"
export {
  type FetchError,
  ImportFileUnreadable,
  ImportPdfEncrypted,
  ImportSourceInvalid,
  ImportSourceRefused,
  ImportSourceUnavailable,
  ImportTextNotUtf8,
  ImportTooLarge
} from "./import/ImportError.js"
export { DEFAULT_MAX_CONCURRENT_IMPORTS, ImportSettings } from "./import/ImportSettings.js"
export type { Measurements } from "./import/Measurements.js"
export { MediaFetcher, type MediaFetcherShape, type SpooledMedia } from "./import/MediaFetcher.js"
export type { Sniffed } from "./import/MediaFormat.js"
export { MediaProbe, type MediaProbeShape, type Probed } from "./import/MediaProbe.js"
export type { StoredFile } from "./StoredFile.js"
export { StoredFileLookup } from "./StoredFileLookup.js"
export { StoredFileUrls } from "./StoredFileUrls.js"
export { type ImportedFile, StoredFiles } from "./StoredFiles.js"
export { checkImportUrl } from "./import/importUrl.js"
export { describeBytes, VIDEO_MAX_BYTES } from "./import/limits.js"

/**
 * The port that looks inside spooled bytes: which format they are (by signature) and what they
 * measure. The Node adapter uses file-type, image-size, mediainfo.js, music-metadata and unpdf;
 * the decisions about what is acceptable stay in core's pure rules (MediaFormat, Measurements).
 */
import { Context, type Effect } from "effect"
import type { ImportFileUnreadable, ImportPdfEncrypted, ImportTextNotUtf8 } from "./ImportError.js"
import type { MediaFormat, Sniffed, Tracks } from "./MediaFormat.js"
import type { Measurements } from "./Measurements.js"
import type { SpooledMedia } from "./MediaFetcher.js"

/** A probe's result: measurements plus the tracks a container holds. */
export interface Probed extends Measurements {
  /** For containers (measure "video"): which tracks it has. */
  readonly tracks?: Tracks | undefined
}

export type ProbeError = ImportFileUnreadable | ImportPdfEncrypted | ImportTextNotUtf8

/** The operations of the media probe port. */
export interface MediaProbeShape {
  /** The format by signature; undefined when none matches (plain text, HTML, unknown bytes). */
  readonly sniff: (media: SpooledMedia) => Effect.Effect<Sniffed | undefined>
  /** Measures the bytes as `format` (the decided one); text is validated, not measured. */
  readonly measure: (media: SpooledMedia, format: MediaFormat) => Effect.Effect<Probed, ProbeError>
}

/** Port: recognises a media file's format and measures it. */
export class MediaProbe extends Context.Tag("@frank/core/MediaProbe")<MediaProbe, MediaProbeShape>() {}

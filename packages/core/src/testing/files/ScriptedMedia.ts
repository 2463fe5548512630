/**
 * Scripted media sources for simulations: a real MediaFetcher and MediaProbe over files a test
 * registers by URL, with no network and no media tools. The fetcher enforces the size limit and
 * answers unknown URLs like a 404; the probe answers the registered sniff and measurements, and
 * checks TXT/MD for UTF-8 for real. Core's rules decide everything else, as in production.
 */
import { Context, Effect, Layer, Stream } from "effect"
import { describeBytes } from "../../files/import/limits.js"
import { ImportSourceUnavailable, ImportTextNotUtf8, ImportTooLarge } from "../../files/import/ImportError.js"
import { MediaFetcher, type SpooledMedia } from "../../files/import/MediaFetcher.js"
import type { Sniffed } from "../../files/import/MediaFormat.js"
import { MediaProbe, type Probed, type ProbeError } from "../../files/import/MediaProbe.js"

/** A file a scripted URL serves: its bytes and what probing it answers. */
export interface ScriptedFile {
  readonly bytes: Uint8Array
  /** What sniffing finds; omitted: no signature (plain text, HTML, unknown bytes). */
  readonly sniffed?: Sniffed | undefined
  /** What measuring finds (tracks included for containers). */
  readonly probed?: Probed | undefined
  /** Measuring fails with this (an encrypted or damaged file). */
  readonly probeError?: ProbeError | undefined
  readonly contentType?: string | undefined
}

/** What a test scripts: the file behind a URL, and which URLs were fetched. */
export interface ScriptedMediaShape {
  /** Serves `file` at `url` from now on. */
  readonly serve: (url: string, file: ScriptedFile) => Effect.Effect<void>
  /** URLs fetched, in order. */
  readonly fetched: Effect.Effect<ReadonlyArray<string>>
}

/** Scripted media sources: the URLs a test serves, for the real import rules to run over. */
export class ScriptedMedia extends Context.Tag("@frank/core/testing/ScriptedMedia")<
  ScriptedMedia,
  ScriptedMediaShape
>() {
  /** ScriptedMedia plus the fetcher and probe it drives. */
  static readonly layer: Layer.Layer<ScriptedMedia | MediaFetcher | MediaProbe> = Layer.suspend(
    () => scriptedMediaLayer
  )
}

const isUtf8Text = (bytes: Uint8Array): string | undefined => {
  if (bytes.includes(0)) return "it contains a NUL byte"
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes)
    return undefined
  } catch {
    return "it is not valid UTF-8"
  }
}

const scriptedMediaLayer: Layer.Layer<ScriptedMedia | MediaFetcher | MediaProbe> = Layer.effectContext(
  Effect.sync(() => {
    const files = new Map<string, ScriptedFile>()
    const fetched: Array<string> = []
    const spooled = new WeakMap<SpooledMedia, ScriptedFile>()
    const fileOf = (media: SpooledMedia) => spooled.get(media) ?? { bytes: new Uint8Array() }
    return Context.make(ScriptedMedia, {
      serve: (url, file) => Effect.sync(() => void files.set(new URL(url).href, file)),
      fetched: Effect.sync(() => [...fetched])
    }).pipe(
      Context.add(MediaFetcher, {
        fetch: ({ url, maxBytes }) =>
          Effect.suspend((): Effect.Effect<SpooledMedia, ImportSourceUnavailable | ImportTooLarge> => {
            fetched.push(url.href)
            const file = files.get(url.href)
            if (file === undefined)
              return Effect.fail(new ImportSourceUnavailable({ message: "the source answered HTTP 404" }))
            if (file.bytes.length > maxBytes)
              return Effect.fail(
                new ImportTooLarge({
                  message: `the file is larger than the limit of ${describeBytes(maxBytes)} for this kind`
                })
              )
            const media: SpooledMedia = {
              sizeBytes: file.bytes.length,
              stream: Stream.make(file.bytes),
              hints: { fileName: url.pathname.split("/").pop(), contentType: file.contentType }
            }
            spooled.set(media, file)
            return Effect.succeed(media)
          })
      }),
      Context.add(MediaProbe, {
        sniff: (media) => Effect.sync(() => fileOf(media).sniffed),
        measure: (media, format) =>
          Effect.suspend((): Effect.Effect<Probed, ProbeError> => {
            const file = fileOf(media)
            if (file.probeError !== undefined) return Effect.fail(file.probeError)
            if (format.measure === "text") {
              const problem = isUtf8Text(file.bytes)
              return problem === undefined
                ? Effect.succeed({})
                : Effect.fail(
                    new ImportTextNotUtf8({ message: `the ${format.name} file must be UTF-8 text: ${problem}` })
                  )
            }
            return Effect.succeed(file.probed ?? {})
          })
      })
    )
  })
)

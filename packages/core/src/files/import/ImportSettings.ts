/**
 * Settings of the import area an engine is built with.
 */
import { Context, Layer } from "effect"

export interface ImportSettingsShape {
  /** Development and tests only (FRANK_ALLOW_PRIVATE_NETWORK): http:// and private hosts allowed. */
  readonly allowPrivateNetwork: boolean
  /**
   * Imports downloading or being inspected at once; more wait in line (a queue, not a failure).
   * Each holds up to one spooled file of its kind's limit on disk and one inspection's memory.
   */
  readonly maxConcurrentImports: number
}

/** URL imports that may run at once by default. */
export const DEFAULT_MAX_CONCURRENT_IMPORTS = 4

/** The settings of URL imports (concurrency, private network, limits), provided by the host. */
export class ImportSettings extends Context.Tag("@frank/core/ImportSettings")<ImportSettings, ImportSettingsShape>() {
  static readonly layerProduction = Layer.succeed(ImportSettings, {
    allowPrivateNetwork: false,
    maxConcurrentImports: DEFAULT_MAX_CONCURRENT_IMPORTS
  })
  /** These import settings as a layer. */
  static readonly layer = (settings: ImportSettingsShape) => Layer.succeed(ImportSettings, settings)
}

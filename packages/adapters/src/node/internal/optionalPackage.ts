/**
 * The heavy features of @frank/adapters (PGlite, invoice PDFs, QR codes, media probes, the
 * cabinet's chart) load their npm package on first use, and each package is an optional peer
 * (docs/decisions.md, "Packages an existing backend can take in"): an embedder on PostgreSQL who
 * never shows a PDF installs none of them. When one is missing, its feature fails with an error
 * naming the package to install, not Node's bare "Cannot find package", and never at import.
 * Core has the same rule for gpt-tokenizer (packages/core/src/internal/optionalPackage.ts).
 */
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"

/** Thrown (or died with) when a feature's optional package is not installed. */
export class MissingPackageError extends Error {
  readonly code = "MISSING_OPTIONAL_PACKAGE"
  constructor(
    readonly packageName: string,
    readonly feature: string
  ) {
    super(`${feature} needs the optional package ${packageName}: npm install ${packageName}`)
    this.name = "MissingPackageError"
  }
}

const codeOf = (error: unknown) => (error as { code?: unknown } | null)?.code

/** `load()` (an `import()` of `packageName`), failing with `MissingPackageError` when it is not installed. */
export const importOptional = <A>(packageName: string, feature: string, load: () => Promise<A>): Promise<A> =>
  load().catch((error: unknown) => {
    // ESM resolution tells a missing package from a missing file inside one by its message.
    const missing =
      codeOf(error) === "ERR_MODULE_NOT_FOUND" &&
      error instanceof Error &&
      error.message.includes(`Cannot find package '${packageName}'`)
    throw missing ? new MissingPackageError(packageName, feature) : error
  })

const require = createRequire(import.meta.url)

/** Whether no node_modules folder on the resolution path holds `packageName`. */
const notInstalled = (packageName: string) =>
  !(require.resolve.paths(packageName) ?? []).some((dir) => existsSync(join(dir, packageName, "package.json")))

/** The file `specifier` (inside `packageName`) resolves to; `MissingPackageError` when it is not installed. */
export const resolveOptional = (packageName: string, feature: string, specifier: string): string => {
  try {
    return require.resolve(specifier)
  } catch (error) {
    // CommonJS resolution says "Cannot find module" for both a missing package and a missing file.
    throw codeOf(error) === "MODULE_NOT_FOUND" && notInstalled(packageName)
      ? new MissingPackageError(packageName, feature)
      : error
  }
}

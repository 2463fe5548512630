/**
 * Heavy features of core load their npm package on first use, and that package is an optional
 * peer (docs/decisions.md, "Packages an existing backend can take in"): an embedder who never
 * uses the feature installs nothing for it. When it is missing, the feature fails with an error
 * that names the package to install instead of Node's bare "Cannot find package". Adapters has
 * the same rule for its own optional peers (src/node/internal/optionalPackage.ts).
 */

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

/** Whether an `import()` failed because `packageName` itself (not a file inside it) is not installed. */
const isMissing = (error: unknown, packageName: string): boolean =>
  error instanceof Error &&
  (error as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND" &&
  error.message.includes(`Cannot find package '${packageName}'`)

/** `load()` (an `import()` of `packageName`), failing with `MissingPackageError` when it is not installed. */
export const importOptional = <A>(packageName: string, feature: string, load: () => Promise<A>): Promise<A> =>
  load().catch((error: unknown) => {
    throw isMissing(error, packageName) ? new MissingPackageError(packageName, feature) : error
  })

/**
 * A freshly initialised PGlite cluster, made once at build time, that a new data directory is
 * copied from instead of running initdb at the host's first start.
 *
 * initdb is most of a fresh embedded start (about 4 s of 5) and it leaves the process hundreds of
 * MiB larger for good: a second PGlite instance, the initdb module and a copy of the whole WASM
 * heap that the allocator does not give back (docs/performance.md, "Host footprint"). The
 * template is exactly what `PGlite.create(dir)` writes on an empty directory, made by the same
 * PGlite, so a seeded directory is the cluster a fresh start made before; its stamp names the PGlite
 * version that made it, and any other version ignores it (a cluster from another PostgreSQL build
 * may not open). Without a usable template PGlite runs initdb as before.
 *
 * The folder sits two levels above this module, the same from `src/sql/` and `dist/sql/`, and
 * ships with the package; `scripts/build-if-stale.mjs` (re)makes it.
 */
import {
  chmodSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { randomUUID } from "node:crypto"
import { rm } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { importOptional, resolveOptional } from "../node/internal/optionalPackage.js"

/** Where the build puts the template, from `src/sql/` or `dist/sql/` alike. */
export const pgliteTemplateDirectory = fileURLToPath(new URL("../../pglite-template/", import.meta.url))

const STAMP = "frank-pglite-template.json"

/** The installed PGlite's version (its package.json, found beside its resolved entry point). */
export const pgliteVersion = (): string => {
  const entry = resolveOptional("@electric-sql/pglite", "The PGlite template", "@electric-sql/pglite")
  const manifest = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as { version: string }
  return manifest.version
}

/** Whether `dir` holds a template made by the installed PGlite. */
export const templateUsable = (dir: string = pgliteTemplateDirectory): boolean => {
  try {
    const stamp = JSON.parse(readFileSync(join(dir, STAMP), "utf8")) as { pglite?: unknown }
    return stamp.pglite === pgliteVersion() && existsSync(join(dir, "PG_VERSION"))
  } catch {
    return false
  }
}

/** A sibling of `dir` to build in, so `dir` only ever appears complete (one rename). */
const scratchBeside = (dir: string) => join(dirname(dir), `.${basename(dir)}.${randomUUID()}`)

/** Moves a finished `from` to `to`, replacing an empty (or, with `replace`, any) directory there. */
const moveInto = (from: string, to: string, replace: boolean) => {
  if (existsSync(to)) replace ? rmSync(to, { recursive: true, force: true }) : rmdirSync(to)
  renameSync(from, to)
}

/**
 * Makes the template in `dir` with the installed PGlite: initdb into a scratch directory, the
 * stamp last, then one rename over any older template. Meant for a short-lived build process:
 * it leaves this one as large as initdb makes it.
 */
export const writePgliteTemplate = async (dir: string = pgliteTemplateDirectory): Promise<void> => {
  const { PGlite } = await importOptional(
    "@electric-sql/pglite",
    "The PGlite template",
    () => import("@electric-sql/pglite")
  )
  const scratch = scratchBeside(dir)
  try {
    const db = await PGlite.create(scratch)
    await db.close()
    writeFileSync(join(scratch, STAMP), `${JSON.stringify({ pglite: pgliteVersion() })}\n`)
    moveInto(scratch, dir, true)
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

/** A directory that is missing or empty: the only kind seeded, anything else is PGlite's to judge. */
const vacant = (dir: string) => !existsSync(dir) || readdirSync(dir).length === 0

/**
 * Copies a directory tree but the stamp, one file after another, owner-only as initdb makes a
 * cluster (PGlite's own writes leave files 0666). Creating the ~1,000 files is the cost (~0.5 ms
 * of system time each on our VMs' disk); this synchronous walk took half the CPU of
 * `fs.promises.cp`, and clones files where the filesystem can (btrfs, XFS, APFS).
 */
const copyTree = (from: string, to: string) => {
  mkdirSync(to, { mode: 0o700 })
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.name === STAMP) continue
    const [source, target] = [join(from, entry.name), join(to, entry.name)]
    if (entry.isDirectory()) copyTree(source, target)
    else {
      copyFileSync(source, target, constants.COPYFILE_FICLONE)
      chmodSync(target, 0o600)
    }
  }
}

/**
 * Copies the template into `dataDir` when that directory is new (missing or empty) and a usable
 * template exists; true when it did. The copy is made beside `dataDir` and renamed into place, so an
 * interrupted copy leaves `dataDir` as it was and the next start seeds it again. It blocks the
 * thread for the copy (well under a second), once per new data directory.
 */
export const seedFromTemplate = async (dataDir: string, template: string = pgliteTemplateDirectory) => {
  if (!vacant(dataDir) || !templateUsable(template)) return false
  const scratch = scratchBeside(dataDir)
  try {
    mkdirSync(dirname(dataDir), { recursive: true })
    copyTree(template, scratch)
    moveInto(scratch, dataDir, false)
    return true
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

#!/usr/bin/env node
// Runs `tsc -b` when a package's dist/ is missing or older than its sources, so `npm start` on a
// fresh clone serves compiled JavaScript without a separate build step. `npm ci` runs it too (the
// root's prepare script), so the first `npm start` after it starts at once. Comparing mtimes takes a
// few milliseconds; `tsc -b`'s own up-to-date check loads the compiler and costs about a second.
// It then makes the PGlite template (packages/adapters/pglite-template, see pgliteTemplate.ts) when
// it is missing or was made by another PGlite version: a new embedded data directory is copied
// from it instead of running initdb at the host's first start.
import { spawnSync } from "node:child_process"
import { readdirSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const PACKAGES = ["core", "adapters", "host"]

const newest = (path) => {
  const s = statSync(path, { throwIfNoEntry: false })
  if (s === undefined) return 0
  if (!s.isDirectory()) return s.mtimeMs
  let max = s.mtimeMs
  for (const name of readdirSync(path)) max = Math.max(max, newest(join(path, name)))
  return max
}

const stale = (pkg) => {
  const dir = join(root, "packages", pkg)
  const built = statSync(join(dir, "dist/.tsbuildinfo"), { throwIfNoEntry: false })
  if (built === undefined) return true
  const inputs = Math.max(
    newest(join(dir, "src")),
    newest(join(dir, "tsconfig.json")),
    newest(join(dir, "package.json"))
  )
  return inputs > built.mtimeMs
}

const which = PACKAGES.filter(stale)
if (which.length > 0) {
  console.error(`building ${which.map((p) => `@frank/${p}`).join(", ")} (dist/ missing or older than src/)`)
  const tsc = join(root, "node_modules/typescript/bin/tsc")
  if (statSync(tsc, { throwIfNoEntry: false }) === undefined) {
    console.error("cannot build: TypeScript is not installed (npm ci installs it with the devDependencies)")
    process.exit(1)
  }
  const r = spawnSync(process.execPath, [tsc, "-b", join(root, "tsconfig.build.json")], { stdio: "inherit" })
  if (r.status !== 0) process.exit(r.status ?? 1)
}

// Without a template the host still starts (PGlite runs initdb), so a failure here only warns.
const template = await import(pathToFileURL(join(root, "packages/adapters/dist/sql/pgliteTemplate.js")).href)
if (!template.templateUsable()) {
  console.error(`making the PGlite template for new data directories (${template.pgliteTemplateDirectory})`)
  try {
    await template.writePgliteTemplate()
  } catch (error) {
    console.error(`warning: no PGlite template, new data directories will run initdb: ${error}`)
  }
}

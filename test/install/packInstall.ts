/**
 * Packs the three packages as npm would publish them and installs the tarballs into a fresh
 * temporary project that has nothing else: what an embedder gets from `npm install`. Shared by the
 * pack-install test and `npm run test:runtimes`.
 */
import { execFileSync } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export const ROOT = resolve(import.meta.dirname, "../..")
export const PACKAGES = ["@frank/core", "@frank/adapters", "@frank/host"] as const

const npm = (args: ReadonlyArray<string>, cwd: string): string =>
  execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 600_000
  })

/** Builds when dist/ is stale, as `npm start` does. */
export const buildIfStale = (): void => {
  execFileSync(process.execPath, [join(ROOT, "scripts/build-if-stale.mjs")], { stdio: "inherit", timeout: 600_000 })
}

export interface PackedFile {
  readonly path: string
}
export interface Packed {
  readonly name: string
  readonly filename: string
  readonly files: ReadonlyArray<PackedFile>
}

/** `npm pack --json` of every package into `into`; the tarballs' names and file lists. */
export const packAll = (into: string): ReadonlyArray<Packed> => {
  mkdirSync(into, { recursive: true })
  const args = ["pack", "--json", "--pack-destination", into, ...PACKAGES.flatMap((p) => ["--workspace", p])]
  return JSON.parse(npm(args, ROOT)) as ReadonlyArray<Packed>
}

/** A fresh project with the tarballs installed and the consumer programs copied in; its path. */
export const installTarballs = (packed: ReadonlyArray<Packed>, tarballDir: string): string => {
  const dir = mkdtempSync(join(tmpdir(), "frank-consumer-"))
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "frank-consumer", private: true, type: "module" }, null, 2)
  )
  npm(["install", ...packed.map((p) => join(tarballDir, p.filename))], dir)
  cpSync(join(ROOT, "test/install/consumer"), dir, { recursive: true })
  return dir
}

/**
 * Packs the three packages as npm would publish them and installs the tarballs into a fresh
 * temporary project that has nothing else: what an embedder gets from `npm install`. Shared by the
 * pack-install test and `npm run test:runtimes`.
 */
import { execFile } from "node:child_process"
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export const ROOT = resolve(import.meta.dirname, "../..")
export const PACKAGES = ["@frank/core", "@frank/adapters", "@frank/host"] as const

export interface Ran {
  readonly status: number
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs a program without blocking the event loop (a vitest worker blocked for minutes loses its
 * RPC to the runner): its exit status and output.
 */
export const runAsync = (file: string, args: ReadonlyArray<string>, cwd: string, env?: NodeJS.ProcessEnv) =>
  new Promise<Ran>((done) => {
    execFile(
      file,
      args,
      { cwd, env, encoding: "utf8", timeout: 600_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) =>
        done({ status: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    )
  })

const npm = async (args: ReadonlyArray<string>, cwd: string): Promise<string> => {
  const r = await runAsync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], cwd)
  if (r.status !== 0) throw new Error(`npm ${args[0]} failed:\n${r.stderr}`)
  return r.stdout
}

/** Builds when dist/ is stale, as `npm start` does. */
export const buildIfStale = async (): Promise<void> => {
  const r = await runAsync(process.execPath, [join(ROOT, "scripts/build-if-stale.mjs")], ROOT)
  if (r.status !== 0) throw new Error(`build failed:\n${r.stdout}${r.stderr}`)
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
export const packAll = async (into: string): Promise<ReadonlyArray<Packed>> => {
  mkdirSync(into, { recursive: true })
  const args = ["pack", "--json", "--pack-destination", into, ...PACKAGES.flatMap((p) => ["--workspace", p])]
  return JSON.parse(await npm(args, ROOT)) as ReadonlyArray<Packed>
}

export interface InstallOptions {
  /** Install only these of the packed packages (all when omitted). */
  readonly only?: ReadonlyArray<string>
  /** Registry specs the app installs beside them, e.g. its own `effect@3.22.3`. */
  readonly alongside?: ReadonlyArray<string>
}

/** A fresh project with the tarballs installed and the consumer programs copied in; its path. */
export const installTarballs = async (
  packed: ReadonlyArray<Packed>,
  tarballDir: string,
  options: InstallOptions = {}
): Promise<string> => {
  const dir = mkdtempSync(join(tmpdir(), "frank-consumer-"))
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "frank-consumer", private: true, type: "module" }, null, 2)
  )
  const chosen = packed.filter((p) => options.only?.includes(p.name) ?? true)
  await npm(["install", ...(options.alongside ?? []), ...chosen.map((p) => join(tarballDir, p.filename))], dir)
  cpSync(join(ROOT, "test/install/consumer"), dir, { recursive: true })
  return dir
}

/** Bytes of the files under `dir` (apparent sizes, as `du -sb`; symbolic links not followed), skipping paths `skip` names. */
export const treeBytes = (dir: string, skip: (path: string) => boolean = () => false): number => {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (skip(path)) continue
    total += entry.isDirectory() ? treeBytes(path, skip) : lstatSync(path).size
  }
  return total
}

/** Every folder under `nodeModules` that holds a package named `name`, nested copies included. */
export const copiesOf = (nodeModules: string, name: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue
      const path = join(dir, entry.name)
      if (path.endsWith(`/node_modules/${name}`) && existsSync(join(path, "package.json"))) found.push(path)
      visit(path)
    }
  }
  visit(nodeModules)
  return found
}

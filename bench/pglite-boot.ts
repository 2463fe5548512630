/**
 * bench/pglite-boot — the embedded database's start alone, each in a fresh process on the compiled
 * adapters (bench/support/pgliteBoot.mjs): a new data directory seeded from the build's template,
 * a new one by PGlite's initdb (the way before the template), and the same directory opened again.
 * Time to the open database and to the migrated one, resident memory then and after 3 s. Runs
 * interleave the three kinds (RUNS rounds, default 5) and the medians are printed, so machine
 * load drifting during the run moves every kind alike. Builds first when stale.
 *
 * Node runs with --liftoff-only, as the host runs PGlite (NODE_FLAGS overrides).
 *
 *   npm run bench:pglite-boot        # RUNS=5, SETTLE_MS=3000, NODE_FLAGS override
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"

const ROOT = resolve(import.meta.dirname, "..")
const RUNS = Number(process.env.RUNS ?? 5)
const SETTLE_S = Number(process.env.SETTLE_MS ?? 3000) / 1000
/** The host runs PGlite's WebAssembly on the baseline compiler only (host/src/db/database.ts). */
const NODE_FLAGS = (process.env.NODE_FLAGS ?? "--liftoff-only").split(" ").filter(Boolean)

interface Boot {
  readonly openMs: number
  readonly migratedMs: number
  readonly readyMiB: number
  readonly settledMiB: number
}

const run = (file: string, env: Record<string, string>, flags: ReadonlyArray<string> = []) =>
  new Promise<string>((done, fail) => {
    const child = spawn(process.execPath, [...flags, join(ROOT, file)], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout.on("data", (d) => {
      out += d
    })
    child.once("exit", (code) => (code === 0 ? done(out) : fail(new Error(`${file} exited with ${code}`))))
  })

const boot = async (dataDir: string, template: "build" | "none"): Promise<Boot> =>
  JSON.parse(
    (await run("bench/support/pgliteBoot.mjs", { DATA_DIR: dataDir, TEMPLATE: template }, NODE_FLAGS)).trim()
  ) as Boot

await run("scripts/build-if-stale.mjs", {})
const kinds = ["template", "initdb", "existing"] as const
const results: Record<(typeof kinds)[number], Boot[]> = { template: [], initdb: [], existing: [] }
const loads: number[] = []
for (let i = 0; i < RUNS; i++) {
  const parent = mkdtempSync(join(tmpdir(), "frank-pglite-boot-"))
  try {
    loads.push(loadavg()[0] ?? 0)
    results.template.push(await boot(join(parent, "seeded"), "build"))
    results.initdb.push(await boot(join(parent, "initdb"), "none"))
    results.existing.push(await boot(join(parent, "seeded"), "build"))
  } finally {
    rmSync(parent, { recursive: true, force: true })
  }
}

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor((s.length - 1) / 2)] ?? Number.NaN
}
const of = (k: (typeof kinds)[number], f: keyof Boot) => median(results[k].map((b) => b[f])).toFixed(0)
console.log(
  `\nbench/pglite-boot: medians of ${RUNS} runs each, load average ${loads.map((l) => l.toFixed(1)).join(" ")}\n`
)
console.log(
  `${"data directory".padEnd(22)} ${"open ms".padStart(8)} ${"migrated ms".padStart(12)} ${"RSS MiB then".padStart(13)} ${`after ${SETTLE_S} s`.padStart(10)}`
)
const label = { template: "seeded from template", initdb: "initdb (no template)", existing: "existing, reopened" }
for (const k of kinds)
  console.log(
    `${label[k].padEnd(22)} ${of(k, "openMs").padStart(8)} ${of(k, "migratedMs").padStart(12)} ${of(k, "readyMiB").padStart(13)} ${of(k, "settledMiB").padStart(10)}`
  )

/**
 * bench/host-footprint — the production host, compiled JavaScript started as `npm start` starts it
 * (node --max-semi-space-size=64 packages/host/dist/main.js), against a bare node:http + pg server
 * (bench/support/bareServer.mjs) in the same run: time from spawn to a 200 on /readyz, resident
 * memory after 30 s idle, and after every 2,000 of 10,000 API requests (GET /v1/billing/balance,
 * 8 connections), on PostgreSQL and on PGlite (a fresh data directory). Builds first when stale.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:footprint
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import autocannon from "autocannon"
import { adminStatement, databaseUrlOrExit, freePort } from "./support/local.js"

const url = databaseUrlOrExit("bench/host-footprint")
const ROOT = resolve(import.meta.dirname, "..")
const IDLE_MS = Number(process.env.BENCH_IDLE_SECONDS ?? 30) * 1000
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 10_000)
const BATCHES = 5

interface Figures {
  readonly label: string
  readonly readyMs: number
  readonly idleMiB: number
  /** Resident memory after each batch of REQUESTS / BATCHES requests. */
  readonly afterMiB: ReadonlyArray<number>
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Resident set size of a process in MiB, from /proc (Linux). */
const rssMiB = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m)
  return line === null ? Number.NaN : Number(line[1]) / 1024
}

const start = (args: ReadonlyArray<string>, env: Record<string, string>): ChildProcess =>
  spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "inherit"] })

const untilReady = async (base: string, child: ChildProcess, started: number): Promise<number> => {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`)
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) return performance.now() - started
    } catch {
      // not listening yet
    }
    if (performance.now() - started > 120_000) throw new Error("not ready after 120 s")
    await sleep(10)
  }
}

const load = (base: string, key: string, amount: number) =>
  new Promise<void>((done, fail) => {
    autocannon(
      { url: `${base}/v1/billing/balance`, connections: 8, amount, headers: { "x-api-key": key } },
      (err, r) => (err ? fail(err) : r.non2xx > 0 ? fail(new Error(`${r.non2xx} non-2xx answers`)) : done())
    )
  })

const stop = async (child: ChildProcess) => {
  const exited = new Promise((r) => child.once("exit", r))
  child.kill("SIGTERM")
  await exited
}

/** Spawns, waits for /readyz, runs `setup` (returns the API key), idles, then loads it in batches. */
const measure = async (
  label: string,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  setup: (base: string) => Promise<string>
): Promise<Figures> => {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const started = performance.now()
  const child = start(args, { ...env, PORT: String(port) })
  try {
    const readyMs = await untilReady(base, child, started)
    const key = await setup(base)
    await sleep(IDLE_MS)
    const idleMiB = rssMiB(child.pid!)
    const afterMiB: number[] = []
    for (let i = 0; i < BATCHES; i++) {
      await load(base, key, REQUESTS / BATCHES)
      afterMiB.push(rssMiB(child.pid!))
    }
    return { label, readyMs, idleMiB, afterMiB }
  } finally {
    await stop(child)
  }
}

/** Partner, session, credit and a full API key through the admin and partner APIs. */
const hostSetup = (adminToken: string) => async (base: string) => {
  const admin = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" }
  const post = async (path: string, body: unknown, headers: Record<string, string> = admin) =>
    (await (await fetch(base + path, { method: "POST", headers, body: JSON.stringify(body) })).json()) as Record<
      string,
      string
    >
  const partner = await post("/admin/v1/partners", { name: "Footprint" })
  const session = await post(`/admin/v1/partners/${partner.id}/sessions`, {})
  await post(`/admin/v1/partners/${partner.id}/credits`, { amountFranks: 5000, kind: "adjustment" })
  const issued = await post(
    "/v1/billing/api-keys",
    {},
    { cookie: `service_token=${session.token}`, "content-type": "application/json" }
  )
  return String(issued.key)
}

const build = spawn(process.execPath, [join(ROOT, "scripts/build-if-stale.mjs")], { stdio: "inherit" })
await new Promise((r) => build.once("exit", r))

const HOST = ["--max-semi-space-size=64", "packages/host/dist/main.js"]
const db = `frank_bench_footprint_${process.pid}`
await adminStatement(url, `CREATE DATABASE ${db}`)
const dbUrl = new URL(url)
dbUrl.pathname = `/${db}`
const pepper = randomBytes(16).toString("hex")
const adminToken = randomBytes(16).toString("hex")
const dataDir = mkdtempSync(join(tmpdir(), "frank-footprint-"))
const common = {
  FRANK_KEY_PEPPER: pepper,
  FRANK_ADMIN_TOKEN: adminToken,
  FRANK_RATE_LIMIT_MULTIPLIER: "1000000",
  LOG_LEVEL: "warning",
  NODE_ENV: "production"
}
const rows: Figures[] = []
try {
  let key = ""
  const pgSetup = hostSetup(adminToken)
  rows.push(
    await measure(
      "host, PostgreSQL",
      HOST,
      { ...common, DATABASE_URL: dbUrl.toString(), FRANK_DATA_DIR: dataDir },
      async (b) => {
        key = await pgSetup(b)
        return key
      }
    )
  )
  rows.unshift(
    await measure(
      "bare node:http + pg",
      ["bench/support/bareServer.mjs"],
      { DATABASE_URL: dbUrl.toString(), FRANK_KEY_PEPPER: pepper },
      async () => key
    )
  )
  const pgliteDir = mkdtempSync(join(tmpdir(), "frank-footprint-pglite-"))
  try {
    const env = { ...common, DATABASE_URL: "", FRANK_DATA_DIR: pgliteDir }
    rows.push(await measure("host, PGlite (fresh)", HOST, env, hostSetup(adminToken)))
  } finally {
    rmSync(pgliteDir, { recursive: true, force: true })
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true })
  await adminStatement(url, `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`)
}

const [baseline] = rows
const ratio = (a: number, b: number | undefined) => (b === undefined ? "" : `${(a / b).toFixed(2)}x`)
console.log(
  `\nbench/host-footprint: ${REQUESTS} requests in ${BATCHES} batches, idle ${IDLE_MS / 1000} s, 8 connections\n`
)
console.log(
  `${"server".padEnd(22)} ${"ready ms".padStart(9)} ${"idle MiB".padStart(9)}  RSS MiB after each ${REQUESTS / BATCHES} requests   ready / idle / last vs baseline`
)
for (const r of rows)
  console.log(
    `${r.label.padEnd(22)} ${r.readyMs.toFixed(0).padStart(9)} ${r.idleMiB.toFixed(0).padStart(9)}  ${r.afterMiB
      .map((m) => m.toFixed(0).padStart(5))
      .join(
        " "
      )}   ${ratio(r.readyMs, baseline?.readyMs)} / ${ratio(r.idleMiB, baseline?.idleMiB)} / ${ratio(r.afterMiB.at(-1) ?? 0, baseline?.afterMiB.at(-1))}`
  )

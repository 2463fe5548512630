/**
 * bench/host-footprint — the production host, compiled JavaScript started as `npm start` starts it
 * (node packages/host/dist/main.js), against a bare node:http + pg server
 * (bench/support/bareServer.mjs) in the same run: time from spawn to a 200 on /readyz, resident
 * memory after 30 s idle, and after every 2,000 of 10,000 API requests (GET /v1/billing/balance,
 * 8 connections), on PostgreSQL and on PGlite (a fresh data directory). For the host it also
 * prints the V8 heap from its /metrics after each batch (old space used, young generation used):
 * an old space that keeps growing is a leak, a resident size that moves with the young
 * generation is not. Builds first when stale.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:footprint
 *   # BENCH_IDLE_SECONDS (30), BENCH_REQUESTS (10000), BENCH_BATCHES (5) override the defaults;
 *   # HOST_NODE_FLAGS (none, as `npm start`) the host's node flags; BENCH_SERVERS
 *   # (bare,postgres,pglite) which rows run (bare needs postgres, which makes its key);
 *   # BENCH_LIVE_HEAP=1 makes the host write a heap snapshot (which collects all garbage first)
 *   # before each heap reading, so the old space printed is what is alive; its resident sizes
 *   # then include the snapshots' own memory and are not comparable with a normal run
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { DatabaseSchema } from "@frank/adapters"
import autocannon from "autocannon"
import { nodeFlags, START_FLAGS } from "./support/hostProcess.js"
import { adminStatement, databaseUrlOrExit, freePort } from "./support/local.js"

const url = databaseUrlOrExit("bench/host-footprint")
const ROOT = resolve(import.meta.dirname, "..")
const IDLE_MS = Number(process.env.BENCH_IDLE_SECONDS ?? 30) * 1000
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 10_000)
const BATCHES = Number(process.env.BENCH_BATCHES ?? 5)
const HOST_FLAGS = nodeFlags(process.env.HOST_NODE_FLAGS, START_FLAGS)
/** Where the host writes its heap snapshots in BENCH_LIVE_HEAP mode; undefined otherwise. */
const SNAPSHOTS = process.env.BENCH_LIVE_HEAP === "1" ? mkdtempSync(join(tmpdir(), "frank-footprint-heap-")) : undefined
const SNAPSHOT_FLAGS = SNAPSHOTS === undefined ? [] : ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${SNAPSHOTS}`]
const SERVERS = new Set((process.env.BENCH_SERVERS ?? "bare,postgres,pglite").split(","))

/** V8 heap figures in MiB, from the host's /metrics (prom-client's default Node metrics). */
interface Heap {
  readonly oldMiB: number
  readonly youngMiB: number
  /** Memory V8 accounts for outside its heap: buffers, and PGlite's WASM memory. */
  readonly externalMiB: number
}

interface Figures {
  readonly label: string
  readonly readyMs: number
  readonly idleMiB: number
  /** Resident memory after each batch of REQUESTS / BATCHES requests. */
  readonly afterMiB: ReadonlyArray<number>
  /** Requests per second over all batches (8 connections; the machine's load moves it). */
  readonly rate: number
  /** The host's heap at idle and after each batch; empty for the bare server. */
  readonly heaps: ReadonlyArray<Heap>
  /** One-minute load average when the row started and ended (the machine is shared). */
  readonly load: readonly [number, number]
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Resident set size of a process in MiB, from /proc (Linux). */
const rssMiB = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m)
  return line === null ? Number.NaN : Number(line[1]) / 1024
}

const metric = (text: string, name: string, labels = "") =>
  Number(new RegExp(`^${name}${labels} (\\S+)`, "m").exec(text)?.[1] ?? Number.NaN) / 2 ** 20

/** Has the host write a heap snapshot and waits until it has begun; /metrics answers after it ends. */
const collectGarbage = async (child: ChildProcess, dir: string) => {
  const before = readdirSync(dir).length
  child.kill("SIGUSR2")
  while (readdirSync(dir).length === before) await sleep(20)
}

const heapOf = async (base: string, child: ChildProcess): Promise<Heap> => {
  if (SNAPSHOTS !== undefined) await collectGarbage(child, SNAPSHOTS)
  const text = await (await fetch(`${base}/metrics`)).text()
  // The snapshot is written by now (the host answered); only the collection it made was wanted.
  if (SNAPSHOTS !== undefined) for (const f of readdirSync(SNAPSHOTS)) rmSync(join(SNAPSHOTS, f))
  const used = (space: string) => metric(text, "nodejs_heap_space_size_used_bytes", `\\{space="${space}"\\}`)
  const externalMiB = metric(text, "nodejs_external_memory_bytes")
  return { oldMiB: used("old"), youngMiB: used("new") + used("new_large_object"), externalMiB }
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

/** Sends `amount` balance requests; resolves with how long they took, in ms. */
const load = (base: string, key: string, amount: number) =>
  new Promise<number>((done, fail) => {
    const started = performance.now()
    autocannon(
      { url: `${base}/v1/billing/balance`, connections: 8, amount, headers: { "x-api-key": key } },
      (err, r) =>
        err
          ? fail(err)
          : r.non2xx > 0
            ? fail(new Error(`${r.non2xx} non-2xx answers`))
            : done(performance.now() - started)
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
  setup: (base: string) => Promise<string>,
  withHeap = true
): Promise<Figures> => {
  const loadBefore = loadavg()[0] ?? 0
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const started = performance.now()
  const child = start(args, { ...env, PORT: String(port) })
  const heap = () => (withHeap ? heapOf(base, child).then((h) => [h]) : Promise.resolve([]))
  try {
    const readyMs = await untilReady(base, child, started)
    const key = await setup(base)
    await sleep(IDLE_MS)
    const idleMiB = rssMiB(child.pid!)
    const heaps = await heap()
    const afterMiB: number[] = []
    let loadMs = 0
    for (let i = 0; i < BATCHES; i++) {
      loadMs += await load(base, key, REQUESTS / BATCHES)
      afterMiB.push(rssMiB(child.pid!))
      heaps.push(...(await heap()))
    }
    const rate = (BATCHES * Math.floor(REQUESTS / BATCHES) * 1000) / loadMs
    return { label, readyMs, idleMiB, afterMiB, rate, heaps, load: [loadBefore, loadavg()[0] ?? 0] }
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

const HOST = [...HOST_FLAGS, ...SNAPSHOT_FLAGS, "packages/host/dist/main.js"]
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
  if (SERVERS.has("postgres")) {
    const pgSetup = hostSetup(adminToken)
    const env = { ...common, DATABASE_URL: dbUrl.toString(), FRANK_DATA_DIR: dataDir }
    rows.push(
      await measure("host, PostgreSQL", HOST, env, async (b) => {
        key = await pgSetup(b)
        return key
      })
    )
    if (SERVERS.has("bare")) {
      // The host's tables are in its schema (frank); the bare server reads them there.
      const bareUrl = DatabaseSchema.withSearchPath(dbUrl.toString(), DatabaseSchema.DEFAULT_SCHEMA)
      const env = { DATABASE_URL: bareUrl, FRANK_KEY_PEPPER: pepper }
      rows.unshift(await measure("bare node:http + pg", ["bench/support/bareServer.mjs"], env, async () => key, false))
    }
  }
  if (SERVERS.has("pglite")) {
    const pgliteDir = mkdtempSync(join(tmpdir(), "frank-footprint-pglite-"))
    try {
      const env = { ...common, DATABASE_URL: "", FRANK_DATA_DIR: pgliteDir }
      rows.push(await measure("host, PGlite (fresh)", HOST, env, hostSetup(adminToken)))
    } finally {
      rmSync(pgliteDir, { recursive: true, force: true })
    }
  }
} finally {
  for (const dir of [dataDir, SNAPSHOTS]) if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  await adminStatement(url, `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`)
}

const baseline = rows.find((r) => r.label.startsWith("bare"))
const ratio = (a: number, b: number | undefined) => (b === undefined ? "–" : `${(a / b).toFixed(2)}x`)
const series = (xs: ReadonlyArray<number>) => xs.map((m) => m.toFixed(0).padStart(5)).join(" ")
console.log(
  `\nbench/host-footprint: ${REQUESTS} requests in ${BATCHES} batches, idle ${IDLE_MS / 1000} s, 8 connections, host flags "${HOST_FLAGS.join(" ")}"\n`
)
console.log(
  `${"server".padEnd(22)} ${"ready ms".padStart(9)} ${"idle MiB".padStart(9)}  RSS MiB after each ${REQUESTS / BATCHES} requests   ready / idle / last vs baseline   req/s   load avg`
)
for (const r of rows)
  console.log(
    `${r.label.padEnd(22)} ${r.readyMs.toFixed(0).padStart(9)} ${r.idleMiB.toFixed(0).padStart(9)}  ${series(r.afterMiB)}   ${ratio(r.readyMs, baseline?.readyMs)} / ${ratio(r.idleMiB, baseline?.idleMiB)} / ${ratio(r.afterMiB.at(-1) ?? 0, baseline?.afterMiB.at(-1))}   ${r.rate.toFixed(0).padStart(5)}   ${r.load.map((l) => l.toFixed(1)).join(" → ")}`
  )
console.log(
  `\nV8 heap of the host (MiB used, from /metrics${SNAPSHOTS === undefined ? "" : ", after a full collection"}): at idle, then after each batch`
)
for (const r of rows.filter((r) => r.heaps.length > 0)) {
  console.log(`${r.label.padEnd(22)} old space   ${series(r.heaps.map((h) => h.oldMiB))}`)
  console.log(`${"".padEnd(22)} young gen.  ${series(r.heaps.map((h) => h.youngMiB))}`)
  console.log(`${"".padEnd(22)} external    ${series(r.heaps.map((h) => h.externalMiB))}`)
}

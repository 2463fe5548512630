/**
 * Profiles the host under the bench/api load: starts `packages/host/src/main.ts` with
 * `--cpu-prof` on a fresh database, drives GET /v1/billing/balance with autocannon, stops the host
 * with SIGTERM (which writes the profile) and prints the top self-time functions of the samples
 * taken under load, their shares per package and per layer of the request path (router, security,
 * schema, SQL client, driver, logging, metrics, Effect's runtime), plus the host's CPU time per
 * request (/proc).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --conditions=@frank/source --import tsx bench/api-profile.ts [dir]
 *
 * NO_PROFILE=1 skips the profiler (CPU per request only). OP_COUNT=1 preloads bench/api-opcount.ts
 * and prints the Effect operations evaluated per request, by op code; OP_COUNT_DETAIL=1 also by
 * the source of the function each runs (slow, for attribution only). The profiler samples wall
 * time of the host's thread: on a busy machine, time the host spends descheduled inside a syscall
 * (mostly `writev` to PostgreSQL) shows up as that syscall's self time.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { join, resolve } from "node:path"
import autocannon from "autocannon"
import { nodeFlags, START_FLAGS } from "./support/hostProcess.js"
import { adminStatement, freePort } from "./support/local.js"

const url = process.env.DATABASE_URL ?? ""
if (url.length === 0) {
  console.log("bench/api-profile needs DATABASE_URL (a PostgreSQL server); nothing measured.")
  process.exit(0)
}
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10)
const ROOT = resolve(import.meta.dirname, "..")
const dir = resolve(process.argv[2] ?? `/tmp/frank-api-profile-${process.pid}`)
mkdirSync(dir, { recursive: true })

const admin = (text: string) => adminStatement(url, text)

/** With ALLOC set (and OP_COUNT, for the time marks), the bytes the host allocates per request. */
const allocFile = process.env.ALLOC === undefined ? undefined : join(dir, "gc-trace.txt")
const allocatedBetween = (fromMs: number, toMs: number): number => {
  let bytes = 0
  for (const line of readFileSync(allocFile!, "utf8").split("\n")) {
    const at = /\]\s+(\d+) ms: /.exec(line)
    const allocated = / allocated=(\d+)/.exec(line)
    if (at !== null && allocated !== null && Number(at[1]) > fromMs && Number(at[1]) <= toMs)
      bytes += Number(allocated[1])
  }
  return bytes
}

/** With OP_COUNT set, the host counts Effect operations (bench/api-opcount.ts). */
const opCountFile = process.env.OP_COUNT === undefined ? undefined : join(dir, "opcount.json")
const opCounts = async (): Promise<Record<string, number>> => {
  if (opCountFile === undefined || host?.pid === undefined) return {}
  rmSync(opCountFile, { force: true })
  process.kill(host.pid, "SIGUSR2")
  for (let i = 0; i < 100 && !existsSync(opCountFile); i++) await new Promise((r) => setTimeout(r, 100))
  await new Promise((r) => setTimeout(r, 100))
  return JSON.parse(readFileSync(opCountFile, "utf8")) as Record<string, number>
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
const cpuSeconds = (pid: number | undefined): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) / 100
}

const json = async (res: Response) => (await res.json()) as Record<string, unknown>

const load = (target: string, key: string, seconds: number) =>
  new Promise<autocannon.Result>((done, fail) => {
    autocannon(
      { url: `${target}/v1/billing/balance`, connections: 32, duration: seconds, headers: { "x-api-key": key } },
      (err, result) => (err ? fail(err) : done(result))
    )
  })

const db = `frank_bench_api_prof_${process.pid}`
await admin(`CREATE DATABASE ${db}`)
const dbUrl = new URL(url)
dbUrl.pathname = `/${db}`
const adminToken = randomBytes(16).toString("hex")
let host: ChildProcess | undefined
/** The measured load, on this process's clock; only the profile's samples inside it count. */
const window = { start: 0, end: 0, exit: 0 }
try {
  const port = await freePort()
  const profiling = process.env.NO_PROFILE === undefined ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : []
  const opCounting = opCountFile === undefined ? [] : ["--import", "./bench/api-opcount.ts"]
  // Allocation: V8 reports the bytes allocated since the previous GC on every GC; a 1 MiB young
  // generation makes those GCs frequent enough to sum over the measured window.
  const gcTrace =
    allocFile === undefined
      ? nodeFlags(process.env.HOST_NODE_FLAGS, START_FLAGS)
      : ["--trace-gc-nvp", "--min-semi-space-size=1", "--max-semi-space-size=1"]
  host = spawn(
    process.execPath,
    [
      ...gcTrace,
      ...profiling,
      "--conditions=@frank/source",
      "--import",
      "tsx",
      ...opCounting,
      "packages/host/src/main.ts"
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        DATABASE_URL: dbUrl.toString(),
        FRANK_KEY_PEPPER: randomBytes(16).toString("hex"),
        FRANK_ADMIN_TOKEN: adminToken,
        FRANK_RATE_LIMIT_MULTIPLIER: "1000000",
        FRANK_DATA_DIR: `/tmp/frank-bench-${process.pid}`,
        LOG_LEVEL: "warning",
        OP_COUNT: opCountFile ?? ""
      },
      stdio: ["ignore", allocFile === undefined ? "ignore" : openSync(allocFile, "w"), "inherit"]
    }
  )
  const hostUrl = `http://127.0.0.1:${port}`
  const deadline = performance.now() + 60_000
  for (;;) {
    if (performance.now() > deadline) throw new Error("host did not start")
    try {
      if ((await fetch(`${hostUrl}/readyz`)).ok) break
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  const auth = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" }
  const partner = await json(
    await fetch(`${hostUrl}/admin/v1/partners`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "Bench" })
    })
  )
  const session = await json(
    await fetch(`${hostUrl}/admin/v1/partners/${partner.id}/sessions`, { method: "POST", headers: auth, body: "{}" })
  )
  await fetch(`${hostUrl}/admin/v1/partners/${partner.id}/credits`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ amountFranks: 5000, kind: "adjustment" })
  })
  const issued = await json(
    await fetch(`${hostUrl}/v1/billing/api-keys`, {
      method: "POST",
      headers: { cookie: `service_token=${session.token}`, "content-type": "application/json" },
      body: "{}"
    })
  )
  const key = String(issued.key)
  await load(hostUrl, key, 3)
  window.start = performance.now()
  const opsBefore = await opCounts()
  const cpuBefore = cpuSeconds(host.pid)
  const r = await load(hostUrl, key, DURATION_S)
  const cpuUs = ((cpuSeconds(host.pid) - cpuBefore) * 1e6) / r.requests.total
  const opsAfter = await opCounts()
  if (opCountFile !== undefined) {
    const perRequest = Object.keys(opsAfter)
      .map((k) => [k, ((opsAfter[k] ?? 0) - (opsBefore[k] ?? 0)) / r.requests.total] as const)
      .filter(([, n]) => n > 0)
      .sort((a, b) => b[1] - a[1])
    if (allocFile !== undefined) {
      await new Promise((r) => setTimeout(r, 500))
      console.log(
        `allocated per request: ${(allocatedBetween(opsBefore.atMs!, opsAfter.atMs!) / r.requests.total / 1024).toFixed(1)} KiB`
      )
    }
    const plain = perRequest.filter(([k]) => !k.includes(" ") && k !== "atMs")
    const total = plain.filter(([k]) => k !== "fibers").reduce((a, [, n]) => a + n, 0)
    console.log(
      `Effect ops per request: ${total.toFixed(1)} (${plain.map(([k, n]) => `${k} ${n.toFixed(1)}`).join(", ")})`
    )
    for (const [k, n] of perRequest.filter(([k]) => k.includes(" ")).slice(0, 150))
      console.log(`${n.toFixed(2).padStart(6)}  ${k}`)
  }
  window.end = performance.now()
  console.log(
    `host: ${r.requests.average.toFixed(0)} req/s, p99 ${r.latency.p99} ms, ${cpuUs.toFixed(0)} µs CPU/request, non-2xx ${r.non2xx}`
  )
} finally {
  if (host !== undefined) {
    const exited = new Promise((r) => host?.once("exit", r))
    host.kill("SIGTERM")
    await exited
    window.exit = performance.now()
  }
  await admin(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`)
}

if (process.env.NO_PROFILE !== undefined) process.exit(0)
// Self time per function, idle excluded.
// The main thread's profile is the largest (the other one is the module loader's worker).
const file = readdirSync(dir)
  .filter((f) => f.endsWith(".cpuprofile"))
  .map((f) => ({ f, size: statSync(join(dir, f)).size }))
  .sort((a, b) => b.size - a.size)[0]?.f
if (file === undefined) throw new Error(`no profile in ${dir}`)
interface Node {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly children?: ReadonlyArray<number>
}
/**
 * The layer of the request path a frame belongs to, or undefined for Effect's own runtime (and
 * the microtask queue that drives it), which only runs other layers' code: a sample goes to the
 * nearest frame, leaf upwards, that names a layer, else to "Effect runtime".
 */
const layerOf = ({ functionName: f, url: u }: Node["callFrame"]): string | undefined => {
  if (f === "(garbage collector)") return "garbage collector"
  if (u === "") return f === "runMicrotasks" || f === "(root)" ? undefined : `native: ${f}`
  if (/effect\/dist\/esm\/(Schema|ParseResult|SchemaAST)\.js/.test(u)) return "schema (effect/Schema)"
  if (/effect\/dist\/esm\/internal\/(logger|metric)/.test(u)) return "Effect logger and metrics"
  if (/\/effect\/dist\//.test(u) || /task_queues/.test(u)) return undefined
  if (/@effect\/platform-node/.test(u)) return "@effect/platform-node (node:http to Effect)"
  if (/@effect\/platform\/dist\/esm\/(HttpApi|OpenApi|internal\/httpRouter|HttpRouter)/.test(u))
    return "@effect/platform HttpApi and router"
  if (/@effect\/platform/.test(u)) return "@effect/platform server, app, bodies"
  if (/@effect\/sql/.test(u)) return "@effect/sql and sql-pg"
  if (/node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+)\//.test(u)) return "pg driver"
  if (/prom-client|host\/src\/metrics/.test(u)) return "metrics (prom-client)"
  if (/host\/src\/logging/.test(u)) return "access log"
  if (/SecurityLive|\/ratelimit\/|\/access\/|NodeSecrets|refusedKey|sql\/SqlAccess|sql\/SqlRateLimit/.test(u))
    return "security: key, rate limit, audit origin"
  if (/packages\/(core|adapters|host)\/src\//.test(u)) return "other Frank code"
  if (/^node:/.test(u)) return "node core (http, net, streams)"
  return u.replace(/.*node_modules\//, "").replace(/\/.*/, "")
}
const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as {
  nodes: Node[]
  samples: number[]
  timeDeltas: number[]
  endTime: number
}
// Sample times are µs on the host's clock; the profile ends when the host exits.
const from = profile.endTime - (window.exit - window.start) * 1000
const to = profile.endTime - (window.exit - window.end) * 1000
let at = profile.endTime - profile.timeDeltas.reduce((a, b) => a + b, 0)
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const self = new Map<string, number>()
const perPackage = new Map<string, number>()
const perLayer = new Map<string, number>()
const parentOf = new Map<number, number>()
for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id)
const layerOfSample = (id: number): string => {
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const layer = layerOf(byId.get(at)!.callFrame)
    if (layer !== undefined) return layer
  }
  return "Effect runtime (fibers, ops)"
}
let busy = 0
profile.samples.forEach((id, i) => {
  const t = profile.timeDeltas[i] ?? 0
  at += t
  if (at < from || at > to) return
  const { functionName, url: u, lineNumber } = byId.get(id)!.callFrame
  if (functionName === "(idle)" || functionName === "(program)") return
  busy += t
  const where = u
    .replace(/.*node_modules\//, "")
    .replace(`${ROOT}/`, "")
    .replace("file://", "")
  const k = `${functionName || "(anonymous)"} ${where}:${lineNumber + 1}`
  self.set(k, (self.get(k) ?? 0) + t)
  const pkg = where.replace(/\/(dist|src)\/.*/, "")
  perPackage.set(pkg, (perPackage.get(pkg) ?? 0) + t)
  const layer = layerOfSample(id)
  perLayer.set(layer, (perLayer.get(layer) ?? 0) + t)
})
const show = (m: Map<string, number>, n: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, t]) => `${((100 * t) / busy).toFixed(1).padStart(5)} %  ${k}`)
    .join("\n")
console.log(
  `profile ${join(dir, file)}; busy ${(busy / 1000).toFixed(0)} of ${((to - from) / 1000).toFixed(0)} ms under load (idle excluded)\n${show(self, 40)}\n--- per package\n${show(perPackage, 20)}\n--- per layer\n${show(perLayer, 20)}`
)

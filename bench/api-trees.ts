/**
 * bench/api-trees — bench/api's read route (GET /v1/billing/balance with a full key) on this
 * checkout's host, on the hosts of other checkouts (BENCH_TREES, comma-separated worktree paths,
 * each with its node_modules) and on the bare node:http + pg server, in interleaved rounds of one
 * run: requests/s and server CPU µs per request of each, and each against the bare server. Each
 * host runs its own migrations on its own fresh database; the bare server reads this checkout's.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test BENCH_TREES=/work/wt/old \
 *     node --conditions=@frank/source --import tsx bench/api-trees.ts
 *
 * BENCH_SECONDS (6) per round, BENCH_ROUNDS (3) rounds; the medians are printed.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { DatabaseSchema } from "@frank/adapters"
import autocannon from "autocannon"
import { cpuSeconds, nodeFlags, ROOT, startSource, waitFor, START_FLAGS } from "./support/hostProcess.js"
import { adminStatement, freePort } from "./support/local.js"

const url = process.env.DATABASE_URL ?? ""
if (url.length === 0) {
  console.log("bench/api-trees needs DATABASE_URL (a PostgreSQL server); nothing measured.")
  process.exit(0)
}
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 6)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const TREES = [ROOT, ...(process.env.BENCH_TREES ?? "").split(",").filter(Boolean)]
const HOST_FLAGS = nodeFlags(process.env.HOST_NODE_FLAGS, START_FLAGS)

const admin = (text: string) => adminStatement(url, text)
const json = async (res: Response) => (await res.json()) as Record<string, unknown>
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const load = (target: string, key: string) =>
  new Promise<autocannon.Result>((done, fail) => {
    autocannon(
      { url: `${target}/v1/billing/balance`, connections: 32, duration: DURATION_S, headers: { "x-api-key": key } },
      (err, result) => (err ? fail(err) : done(result))
    )
  })

/** A host of `tree` from its sources, on a fresh database, with a partner's full key. */
const startHost = async (tree: string, i: number, pepper: string) => {
  const db = `frank_bench_trees_${process.pid}_${i}`
  await admin(`CREATE DATABASE ${db}`)
  const dbUrl = new URL(url)
  dbUrl.pathname = `/${db}`
  const adminToken = randomBytes(16).toString("hex")
  const port = await freePort()
  const child = spawn(
    process.execPath,
    [...HOST_FLAGS, "--conditions=@frank/source", "--import", "tsx", "packages/host/src/main.ts"],
    {
      cwd: tree,
      env: {
        ...process.env,
        PORT: String(port),
        DATABASE_URL: dbUrl.toString(),
        FRANK_KEY_PEPPER: pepper,
        FRANK_ADMIN_TOKEN: adminToken,
        FRANK_RATE_LIMIT_MULTIPLIER: "1000000",
        FRANK_DATA_DIR: `/tmp/frank-bench-trees-${process.pid}-${i}`,
        LOG_LEVEL: "warning"
      },
      stdio: ["ignore", "ignore", "inherit"]
    }
  )
  const base = `http://127.0.0.1:${port}`
  await waitFor(async () => (await fetch(`${base}/readyz`)).ok, `host of ${tree}`)
  const auth = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" }
  const post = (path: string, body: unknown, headers: Record<string, string> = auth) =>
    fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body) }).then(json)
  const partner = await post("/admin/v1/partners", { name: "Bench" })
  const session = await post(`/admin/v1/partners/${partner.id}/sessions`, {})
  await post(`/admin/v1/partners/${partner.id}/credits`, { amountFranks: 5000, kind: "adjustment" })
  const issued = await post(
    "/v1/billing/api-keys",
    {},
    { cookie: `service_token=${session.token}`, "content-type": "application/json" }
  )
  return { tree, db, dbUrl, child, base, key: String(issued.key) }
}

const pepper = randomBytes(16).toString("hex")
const hosts: Array<Awaited<ReturnType<typeof startHost>>> = []
const children: Array<ChildProcess> = []
try {
  for (const [i, tree] of TREES.entries()) {
    const h = await startHost(tree, i, pepper)
    hosts.push(h)
    children.push(h.child)
  }
  const first = hosts[0]!
  const basePort = await freePort()
  const bare = startSource(nodeFlags(process.env.BASELINE_NODE_FLAGS, ""), ["bench/api-baseline-server.ts"], {
    PORT: String(basePort),
    DATABASE_URL: DatabaseSchema.withSearchPath(first.dbUrl.toString(), DatabaseSchema.DEFAULT_SCHEMA),
    FRANK_KEY_PEPPER: pepper
  })
  children.push(bare)
  const bareUrl = `http://127.0.0.1:${basePort}`
  await waitFor(async () => (await fetch(bareUrl, { headers: { "x-api-key": first.key } })).ok, "bare server")
  const sides = [
    { name: "bare node:http + pg", base: bareUrl, key: first.key, pid: bare.pid },
    ...hosts.map((h) => ({ name: `host ${h.tree}`, base: h.base, key: h.key, pid: h.child.pid }))
  ]
  const results = new Map<string, Array<{ rps: number; cpuUs: number }>>(sides.map((s) => [s.name, []]))
  for (const s of sides) await load(s.base, s.key)
  for (let r = 0; r < ROUNDS; r++)
    for (const s of r % 2 === 0 ? sides : [...sides].reverse()) {
      const before = cpuSeconds(s.pid)
      const res = await load(s.base, s.key)
      if (res.non2xx + res.errors > 0) throw new Error(`${s.name}: ${res.non2xx} non-2xx, ${res.errors} errors`)
      results.get(s.name)!.push({
        rps: res.requests.average,
        cpuUs: ((cpuSeconds(s.pid) - before) * 1e6) / res.requests.total
      })
    }
  const bareRps = median(results.get(sides[0]!.name)!.map((x) => x.rps))
  const bareCpu = median(results.get(sides[0]!.name)!.map((x) => x.cpuUs))
  console.log(`\nbench/api-trees — GET /v1/billing/balance, 32 connections, ${ROUNDS} × ${DURATION_S} s, medians`)
  console.log("| server | requests/s | CPU µs/request | requests/s ÷ bare | CPU efficiency ÷ bare |")
  console.log("|---|---:|---:|---:|---:|")
  for (const s of sides) {
    const rps = median(results.get(s.name)!.map((x) => x.rps))
    const cpu = median(results.get(s.name)!.map((x) => x.cpuUs))
    console.log(
      `| ${s.name} | ${rps.toFixed(0)} | ${cpu.toFixed(0)} | ${(rps / bareRps).toFixed(2)} | ${(bareCpu / cpu).toFixed(2)} |`
    )
  }
} finally {
  for (const c of children) c.kill("SIGTERM")
  await new Promise((r) => setTimeout(r, 1500))
  for (const h of hosts) await admin(`DROP DATABASE IF EXISTS ${h.db} WITH (FORCE)`)
}

/**
 * bench/api — GET /v1/billing/balance with a full key through the whole host stack (key re-read,
 * rate limit, balance query, schema encoding) against a bare node:http + pg handler doing the same
 * queries, both on PostgreSQL, both as separate processes, driven by autocannon in the same run.
 * The rate limits are raised for the run (FRANK_RATE_LIMIT_MULTIPLIER).
 * Then, on the same host: a write route (PATCH /v1/webhooks/endpoints/:id) with a fresh
 * Idempotency-Key on every request (each runs and stores its answer in its transaction) against
 * the same route without keys, interleaved rounds, target ≥ 0.8× requests/s (issue 33): on one
 * endpoint (requests queue on its row lock) and spread over 40 endpoints of 4 partners.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:api
 */
import type { ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { DatabaseSchema } from "@frank/adapters"
import autocannon from "autocannon"
import { cpuSeconds, nodeFlags, startSource as start, waitFor, START_FLAGS } from "./support/hostProcess.js"
import { adminStatement, freePort } from "./support/local.js"

const url = process.env.DATABASE_URL ?? ""
if (url.length === 0) {
  console.log("bench/api needs DATABASE_URL (a PostgreSQL server); nothing measured.")
  process.exit(0)
}
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = 32
/** Partners whose 10 endpoints each the spread write rounds PATCH in turn. */
const SPREAD_PARTNERS = 4
/**
 * Node flags of each server. The host runs as `npm start` runs it (START_FLAGS: Node's defaults
 * since issue 36; `--max-semi-space-size=64` saves ~12 % of its CPU per request at ~70 MiB idle,
 * docs/decisions.md). The baseline runs with Node's defaults, which are its best (the larger young
 * generation slowed it by ~20 % here). Override with HOST_NODE_FLAGS / BASELINE_NODE_FLAGS.
 */
const HOST_FLAGS = nodeFlags(process.env.HOST_NODE_FLAGS, START_FLAGS)
const BASELINE_FLAGS = nodeFlags(process.env.BASELINE_NODE_FLAGS, "")

const admin = (text: string) => adminStatement(url, text)

const json = async (res: Response) => (await res.json()) as Record<string, unknown>

const load = (target: string, key: string) =>
  new Promise<autocannon.Result>((done, fail) => {
    autocannon(
      {
        url: `${target}/v1/billing/balance`,
        connections: CONNECTIONS,
        duration: DURATION_S,
        headers: { "x-api-key": key }
      },
      (err, result) => (err ? fail(err) : done(result))
    )
  })

const db = `frank_bench_api_${process.pid}`
await admin(`CREATE DATABASE ${db}`)
const dbUrl = new URL(url)
dbUrl.pathname = `/${db}`
const pepper = randomBytes(16).toString("hex")
const adminToken = randomBytes(16).toString("hex")
const children: ChildProcess[] = []
try {
  const hostPort = await freePort()
  const host = start(HOST_FLAGS, ["packages/host/src/main.ts"], {
    PORT: String(hostPort),
    DATABASE_URL: dbUrl.toString(),
    FRANK_KEY_PEPPER: pepper,
    FRANK_ADMIN_TOKEN: adminToken,
    FRANK_RATE_LIMIT_MULTIPLIER: "1000000",
    FRANK_DATA_DIR: `/tmp/frank-bench-${process.pid}`,
    LOG_LEVEL: "warning"
  })
  children.push(host)
  const hostUrl = `http://127.0.0.1:${hostPort}`
  await waitFor(async () => (await fetch(`${hostUrl}/readyz`)).ok, "host")
  const auth = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" }
  /** A partner with 5,000 ₣ and a full key. */
  const newPartnerKey = async (name: string) => {
    const partner = await json(
      await fetch(`${hostUrl}/admin/v1/partners`, { method: "POST", headers: auth, body: JSON.stringify({ name }) })
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
    return String(issued.key)
  }
  const key = await newPartnerKey("Bench")

  const basePort = await freePort()
  const baseline = start(BASELINE_FLAGS, ["bench/api-baseline-server.ts"], {
    PORT: String(basePort),
    // The host's tables are in its schema (frank); the bare server reads them there.
    DATABASE_URL: DatabaseSchema.withSearchPath(dbUrl.toString(), DatabaseSchema.DEFAULT_SCHEMA),
    FRANK_KEY_PEPPER: pepper
  })
  children.push(baseline)
  const baseUrl = `http://127.0.0.1:${basePort}`
  await waitFor(async () => (await fetch(`${baseUrl}/`, { headers: { "x-api-key": key } })).ok, "baseline")

  // Both answer the same body.
  const a = await (await fetch(`${hostUrl}/v1/billing/balance`, { headers: { "x-api-key": key } })).text()
  const b = await (await fetch(`${baseUrl}/v1/billing/balance`, { headers: { "x-api-key": key } })).text()
  if (a !== b) throw new Error(`responses differ:\n${a}\n${b}`)

  // Warm-up, then interleaved rounds; the best of two per side.
  await load(hostUrl, key)
  await load(baseUrl, key)
  // Each round also records the server's CPU time per answered request (/proc), which the
  // noise of a shared machine disturbs much less than requests/s.
  const rounds: Array<{ side: "engine" | "baseline"; r: autocannon.Result; cpuUs: number }> = []
  const round = async (side: "engine" | "baseline", target: string, pid: number | undefined) => {
    const before = cpuSeconds(pid)
    const r = await load(target, key)
    rounds.push({ side, r, cpuUs: ((cpuSeconds(pid) - before) * 1e6) / r.requests.total })
  }
  for (let i = 0; i < 2; i++) {
    await round("baseline", baseUrl, baseline.pid)
    await round("engine", hostUrl, host.pid)
  }
  const bestRound = (side: "engine" | "baseline") =>
    rounds.filter((x) => x.side === side).reduce((m, x) => (x.r.requests.average > m.r.requests.average ? x : m))
  const minCpu = (side: "engine" | "baseline") => Math.min(...rounds.filter((x) => x.side === side).map((x) => x.cpuUs))
  const e = bestRound("engine").r
  const base = bestRound("baseline").r
  const errors = rounds.reduce((n, x) => n + x.r.errors + x.r.non2xx, 0)
  console.log(
    `\nbench/api — GET /v1/billing/balance, ${CONNECTIONS} connections, ${DURATION_S} s per round, PostgreSQL`
  )
  console.log(
    `node flags — host: ${HOST_FLAGS.join(" ") || "(defaults)"}; baseline: ${BASELINE_FLAGS.join(" ") || "(defaults)"}`
  )
  console.log("| server | requests/s | p50 ms | p99 ms | server CPU µs/request |")
  console.log("|---|---:|---:|---:|---:|")
  console.log(
    `| Frank host (full stack) | ${e.requests.average.toFixed(0)} | ${e.latency.p50} | ${e.latency.p99} | ${minCpu("engine").toFixed(0)} |`
  )
  console.log(
    `| bare node:http + pg | ${base.requests.average.toFixed(0)} | ${base.latency.p50} | ${base.latency.p99} | ${minCpu("baseline").toFixed(0)} |`
  )
  console.log(
    `ratio requests/s engine / baseline: ${(e.requests.average / base.requests.average).toFixed(2)} (target ≥ 0.6); CPU per request baseline / engine: ${(minCpu("baseline") / minCpu("engine")).toFixed(2)}; non-2xx or errors: ${errors}`
  )

  // Idempotency keys on a write route, against the same route without, on two sets of targets:
  // one endpoint, where every PATCH waits for the row lock of the one before (so the ratio is the
  // lock's hold time, which a keyed request extends by its answer's write), and the same PATCH
  // spread over SPREAD_PARTNERS × 10 endpoints, where requests do not queue on one row.
  const newEndpoint = async (apiKey: string) =>
    String(
      (
        await json(
          await fetch(`${hostUrl}/v1/webhooks/endpoints`, {
            method: "POST",
            headers: { "x-api-key": apiKey, "content-type": "application/json" },
            body: JSON.stringify({ url: "https://bench.invalid/hook" })
          })
        )
      ).id
    )
  interface Target {
    readonly key: string
    readonly endpointId: string
  }
  const oneRow: ReadonlyArray<Target> = [{ key, endpointId: await newEndpoint(key) }]
  const spread: Array<Target> = []
  for (let p = 0; p < SPREAD_PARTNERS; p++) {
    const partnerKey = await newPartnerKey(`Bench writer ${p}`)
    for (let e = 0; e < 10; e++) spread.push({ key: partnerKey, endpointId: await newEndpoint(partnerKey) })
  }
  let sequence = 0
  let keySequence = 0
  let firstKeyed: Target | undefined
  const write = (targets: ReadonlyArray<Target>, keyed: boolean) =>
    new Promise<autocannon.Result>((done, fail) => {
      autocannon(
        {
          url: hostUrl,
          method: "PATCH",
          connections: CONNECTIONS,
          duration: DURATION_S,
          body: JSON.stringify({ url: "https://bench.invalid/hook" }),
          requests: [
            {
              setupRequest: (req: autocannon.Request) => {
                const t = targets[sequence++ % targets.length]!
                // A fresh key per request, as a client retrying safely sends.
                if (keyed && keySequence === 0) firstKeyed = t
                const idempotency = keyed ? { "idempotency-key": `bench-${process.pid}-${keySequence++}` } : {}
                return {
                  ...req,
                  path: `/v1/webhooks/endpoints/${t.endpointId}`,
                  headers: { ...req.headers, "x-api-key": t.key, "content-type": "application/json", ...idempotency }
                }
              }
            }
          ]
        },
        (err, result) => (err ? fail(err) : done(result))
      )
    })
  console.log(`\nbench/api — PATCH /v1/webhooks/endpoints/:id, ${CONNECTIONS} connections, ${DURATION_S} s per round`)
  console.log("| targets | requests | requests/s | p50 ms | p99 ms |")
  console.log("|---|---|---:|---:|---:|")
  const ratios: Array<string> = []
  let writeErrors = 0
  /** Answers other than 2xx by status, so a failing round says what failed. */
  const statusesOff: Record<string, number> = {}
  for (const [label, targets] of [
    ["one endpoint", oneRow],
    [`${spread.length} endpoints`, spread]
  ] as const) {
    await write(targets, false)
    await write(targets, true)
    const writes: Array<{ keyed: boolean; r: autocannon.Result }> = []
    for (let i = 0; i < 2; i++) {
      writes.push({ keyed: false, r: await write(targets, false) })
      writes.push({ keyed: true, r: await write(targets, true) })
    }
    const bestWrite = (keyed: boolean) =>
      writes.filter((x) => x.keyed === keyed).reduce((m, x) => (x.r.requests.average > m.r.requests.average ? x : m)).r
    const plain = bestWrite(false)
    const keyed = bestWrite(true)
    writeErrors += writes.reduce((n, x) => n + x.r.errors + x.r.non2xx, 0)
    for (const w of writes)
      for (const [code, stat] of Object.entries(w.r.statusCodeStats ?? {}))
        if (!code.startsWith("2")) statusesOff[code] = (statusesOff[code] ?? 0) + (stat.count ?? 0)
    for (const [what, r] of [
      ["without Idempotency-Key", plain],
      ["a fresh Idempotency-Key each", keyed]
    ] as const)
      console.log(`| ${label} | ${what} | ${r.requests.average.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} |`)
    ratios.push(`${label} ${(keyed.requests.average / plain.requests.average).toFixed(2)}`)
  }
  const replay = await fetch(`${hostUrl}/v1/webhooks/endpoints/${firstKeyed?.endpointId}`, {
    method: "PATCH",
    headers: {
      "x-api-key": String(firstKeyed?.key),
      "content-type": "application/json",
      "idempotency-key": `bench-${process.pid}-0`
    },
    body: JSON.stringify({ url: "https://bench.invalid/hook" })
  })
  console.log(
    `ratio requests/s with keys / without: ${ratios.join(", ")} (target ≥ 0.8); non-2xx or errors: ${writeErrors} ${JSON.stringify(statusesOff)}; a stored key replays: ${replay.headers.get("idempotent-replayed") === "true"}`
  )
} finally {
  for (const c of children) c.kill("SIGTERM")
  await new Promise((r) => setTimeout(r, 1500))
  await admin(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`)
}

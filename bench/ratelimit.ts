/**
 * bench/ratelimit — what a flooding key costs the others. One host on PostgreSQL with the spec's
 * limits (60 requests a minute per key) and FRANK_TRUST_PROXY, so each simulated client has its
 * own address. In one run:
 *   1. partner B reads GET /v1/billing/tariff at 20 requests/s alone (its p50 unloaded);
 *   2. partner A's key floods GET /v1/billing/balance at 2,000 requests/s (a worker thread) while
 *      B reads the same way (its p50 under flood; target ≤ 2× unloaded);
 *   3. capacity at full load: A's exhausted key alone (every answer a 429), then 200 fresh keys
 *      that stay under their limits (every answer a 200), each as fast as the host answers; the
 *      host's CPU per answer (/proc) gives 429s vs 200s per CPU-second (target ≥ 5×).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:ratelimit
 */
import type { ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import autocannon from "autocannon"
import { cpuSeconds, nodeFlags, startSource, waitFor, START_FLAGS } from "./support/hostProcess.js"
import { adminStatement, databaseUrlOrExit, freePort } from "./support/local.js"

const url = databaseUrlOrExit("bench/ratelimit")
const PHASE_S = Number(process.env.BENCH_SECONDS ?? 8)
const FLOOD_RATE = 2_000
const READ_EVERY_MS = 50
const HOST_FLAGS = nodeFlags(process.env.HOST_NODE_FLAGS, START_FLAGS)

const json = async (res: Response) => (await res.json()) as Record<string, unknown>
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

let ipSeq = 0
/** A client address no other request of the run uses, so only key limits apply to it. */
const freshIp = () => {
  ipSeq++
  return `10.${(ipSeq >> 16) & 255}.${(ipSeq >> 8) & 255}.${ipSeq & 255}`
}

/** Partner B's reader: one request every READ_EVERY_MS for `seconds`, its keys in turn. */
const read = async (hostUrl: string, keys: ReadonlyArray<string>, seconds: number) => {
  const latencies: number[] = []
  const statuses = new Map<number, number>()
  const end = performance.now() + seconds * 1000
  for (let i = 0; performance.now() < end; i++) {
    const started = performance.now()
    const res = await fetch(`${hostUrl}/v1/billing/tariff`, {
      headers: { "x-api-key": keys[i % keys.length]!, "x-forwarded-for": freshIp() }
    })
    await res.arrayBuffer()
    latencies.push(performance.now() - started)
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
    await sleep(Math.max(0, READ_EVERY_MS - (performance.now() - started)))
  }
  return { p50: median(latencies), n: latencies.length, statuses }
}

/** Requests at full speed (32 connections) for `seconds`; the host's CPU per answer. */
const capacity = async (hostUrl: string, pid: number | undefined, headers: () => Record<string, string>) => {
  const before = cpuSeconds(pid)
  const result = await new Promise<autocannon.Result>((done, fail) =>
    autocannon(
      {
        url: `${hostUrl}/v1/billing/balance`,
        connections: 32,
        duration: PHASE_S,
        requests: [{ method: "GET", setupRequest: (req) => ({ ...req, headers: headers() }) }]
      },
      (err, r) => (err ? fail(err) : done(r))
    )
  )
  const cpu = cpuSeconds(pid) - before
  return { result, perCpuSecond: result.requests.total / cpu, rate: result.requests.total / PHASE_S }
}

const db = `frank_bench_ratelimit_${process.pid}`
await adminStatement(url, `CREATE DATABASE ${db}`)
const dbUrl = new URL(url)
dbUrl.pathname = `/${db}`
const adminToken = randomBytes(16).toString("hex")
let host: ChildProcess | undefined
try {
  const port = await freePort()
  host = startSource(HOST_FLAGS, ["packages/host/src/main.ts"], {
    PORT: String(port),
    DATABASE_URL: dbUrl.toString(),
    FRANK_KEY_PEPPER: randomBytes(16).toString("hex"),
    FRANK_ADMIN_TOKEN: adminToken,
    FRANK_TRUST_PROXY: "true",
    FRANK_DATA_DIR: `/tmp/frank-bench-ratelimit-${process.pid}`,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info"
  })
  const hostUrl = `http://127.0.0.1:${port}`
  await waitFor(async () => (await fetch(`${hostUrl}/readyz`)).ok, "host")

  const adminHeaders = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" }
  /** A partner with credit and `n` cabinet keys (20 at most, the spec's quota). */
  const partnerWithKeys = async (name: string, n: number) => {
    const partner = await json(
      await fetch(`${hostUrl}/admin/v1/partners`, {
        method: "POST",
        headers: adminHeaders,
        body: JSON.stringify({ name })
      })
    )
    const session = await json(
      await fetch(`${hostUrl}/admin/v1/partners/${partner.id}/sessions`, {
        method: "POST",
        headers: adminHeaders,
        body: "{}"
      })
    )
    const keys: string[] = []
    for (let i = 0; i < n; i++) {
      const issued = await json(
        await fetch(`${hostUrl}/v1/billing/api-keys`, {
          method: "POST",
          headers: {
            cookie: `service_token=${session.token}`,
            "content-type": "application/json",
            "x-forwarded-for": freshIp()
          },
          body: "{}"
        })
      )
      keys.push(String(issued.key))
    }
    return keys
  }
  const [flooder] = await partnerWithKeys("Flooder", 1)
  const readerKeys = await partnerWithKeys("Reader", 20)
  const servedKeys = (
    await Promise.all(Array.from({ length: 10 }, (_, i) => partnerWithKeys(`Served ${i}`, 20)))
  ).flat()
  const floodIp = freshIp()

  // 1. B alone (after a short warm-up of both routes).
  await read(hostUrl, readerKeys, 1)
  const unloaded = await read(hostUrl, readerKeys, PHASE_S)

  // 2. A floods from a worker thread while B reads.
  const floodCpuBefore = cpuSeconds(host.pid)
  const flood = new Promise<autocannon.Result>((done, fail) =>
    autocannon(
      {
        url: `${hostUrl}/v1/billing/balance`,
        connections: 64,
        overallRate: FLOOD_RATE,
        duration: PHASE_S + 1,
        headers: { "x-api-key": flooder!, "x-forwarded-for": floodIp },
        workers: 1
      },
      (err, r) => (err ? fail(err) : done(r))
    )
  )
  await sleep(1_000)
  const flooded = await read(hostUrl, readerKeys, PHASE_S)
  const floodResult = await flood
  const floodCpu = cpuSeconds(host.pid) - floodCpuBefore

  // 3. Capacity: refusals of the exhausted key, then service under the limits.
  const refusals = await capacity(hostUrl, host.pid, () => ({ "x-api-key": flooder!, "x-forwarded-for": floodIp }))
  let next = 0
  const served = await capacity(hostUrl, host.pid, () => ({
    "x-api-key": servedKeys[next++ % servedKeys.length]!,
    "x-forwarded-for": freshIp()
  }))

  const count = (r: autocannon.Result, status: string) =>
    (r.statusCodeStats as Record<string, { count: number }>)[status]?.count ?? 0
  const refusedShare = count(refusals.result, "429") / refusals.result.requests.total
  const servedShare = count(served.result, "200") / served.result.requests.total
  console.log(
    `\nbench/ratelimit — PostgreSQL, spec limits, ${PHASE_S} s phases, host log level ${process.env.BENCH_LOG_LEVEL ?? "info"}`
  )
  console.log("| measure | value |")
  console.log("|---|---:|")
  console.log(`| B's tariff p50 alone, ms (n=${unloaded.n}) | ${unloaded.p50.toFixed(1)} |`)
  console.log(`| B's tariff p50 under A's flood, ms (n=${flooded.n}) | ${flooded.p50.toFixed(1)} |`)
  console.log(
    `| flood offered / answered per s | ${FLOOD_RATE} / ${(floodResult.requests.total / (PHASE_S + 1)).toFixed(0)} |`
  )
  console.log(
    `| flood answers: 429 / 200 / other or errors | ${count(floodResult, "429")} / ${count(floodResult, "200")} / ${floodResult.errors + floodResult.timeouts} |`
  )
  console.log(`| host CPU during the flood, % of one core | ${((floodCpu / (PHASE_S + 1)) * 100).toFixed(0)} |`)
  console.log(
    `| full load: 429s answered per s (${(refusedShare * 100).toFixed(1)} % 429) | ${refusals.rate.toFixed(0)} |`
  )
  console.log(
    `| full load: 200s answered per s (${(servedShare * 100).toFixed(1)} % 200) | ${served.rate.toFixed(0)} |`
  )
  console.log(`| 429s per host CPU-second | ${refusals.perCpuSecond.toFixed(0)} |`)
  console.log(`| 200s per host CPU-second | ${served.perCpuSecond.toFixed(0)} |`)
  console.log(
    `statuses at full load: refused ${JSON.stringify(refusals.result.statusCodeStats)}, served ${JSON.stringify(served.result.statusCodeStats)}`
  )
  console.log(
    `B's statuses alone ${JSON.stringify(Object.fromEntries(unloaded.statuses))}, under flood ${JSON.stringify(Object.fromEntries(flooded.statuses))}`
  )
  console.log(
    `ratios — B's p50 under flood / alone: ${(flooded.p50 / unloaded.p50).toFixed(2)} (target ≤ 2); 429s / 200s per CPU-second: ${(refusals.perCpuSecond / served.perCpuSecond).toFixed(1)} (target ≥ 5)`
  )
} finally {
  host?.kill("SIGTERM")
  await sleep(1500)
  await adminStatement(url, `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`)
}

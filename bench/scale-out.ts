/**
 * bench/scale-out — 1, 2 and 4 reference hosts (separate processes, `packages/host/src/main.ts`)
 * on one PostgreSQL database, each configuration measured in the same run:
 *   (a) deliveries/s: a backlog of webhook deliveries, committed at once, drained by all hosts'
 *       workers to a local node:http receiver answering 200;
 *   (b) requests/s and p50/p99 of a read route (GET /v1/billing/balance) and a write route
 *       (PATCH /v1/webhooks/endpoints/:id over 40 endpoints of 4 partners), one autocannon whose
 *       connections are spread over all hosts;
 * and where it stops: the database's backends in CPU cores, each host's CPU cores, the machine's
 * busy share, and what the active backends wait on (pg_stat_activity sampled every 50 ms).
 * Ratios are against the 1-host figures of the same run. Rate limits are raised for the run
 * (FRANK_RATE_LIMIT_MULTIPLIER). Hosts are added, never stopped between configurations: 1, then
 * a second, then two more, so each configuration's hosts run warm code.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:scale-out
 *   (BENCH_SECONDS per API round, default 10; BACKLOG deliveries per drain, default 20000;
 *   HOSTS, default 1,2,4; CONNECTIONS, default 32; SMALL=1 a smoke run: 1,2 hosts, 1,000
 *   deliveries, 2 s rounds)
 */
import type { ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { DatabaseSchema, webhookNotifyChannel } from "@frank/adapters"
import autocannon from "autocannon"
import pg from "pg"
import { nodeFlags, startSource, waitFor, START_FLAGS } from "./support/hostProcess.js"
import { adminStatement, databaseUrlOrExit, freePort } from "./support/local.js"
import { machineCores, type PhaseUsage, pgSampler } from "./support/pgSampler.js"

const url = databaseUrlOrExit("bench/scale-out")
const SMALL = process.env.SMALL === "1"
const SECONDS = Number(process.env.BENCH_SECONDS ?? (SMALL ? 2 : 10))
const BACKLOG = Number(process.env.BACKLOG ?? (SMALL ? 1000 : 20_000))
const HOSTS = (process.env.HOSTS ?? (SMALL ? "1,2" : "1,2,4")).split(",").map(Number)
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32)
/** As bench/api: the host as `npm start` runs it (64 MiB young generation). */
const HOST_FLAGS = nodeFlags(process.env.HOST_NODE_FLAGS, START_FLAGS)
if (
  HOSTS.some((n) => !Number.isSafeInteger(n) || n <= 0) ||
  ![SECONDS, BACKLOG, CONNECTIONS].every((n) => Number.isSafeInteger(n) && n > 0)
) {
  console.error("bench/scale-out: HOSTS must list positive integers; BENCH_SECONDS, BACKLOG, CONNECTIONS positive")
  process.exit(2)
}

const json = async (res: Response) => (await res.json()) as Record<string, unknown>

/** Answers 200 to every POST and counts them. */
const receiver = await new Promise<{ url: string; count: () => number; close: () => void }>((done) => {
  let count = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      count++
      res.writeHead(200).end()
    })
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, "127.0.0.1", () =>
    done({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
      count: () => count,
      close: () => server.close()
    })
  )
})

const db = `frank_bench_scale_${process.pid}`
await adminStatement(url, `CREATE DATABASE ${db}`)
const dbUrl = new URL(url)
dbUrl.pathname = `/${db}`
const pepper = randomBytes(16).toString("hex")
const adminToken = randomBytes(16).toString("hex")
const hosts: Array<{ process: ChildProcess; url: string }> = []

/** Starts one more host on the shared database and waits until it is ready. */
const startHost = async () => {
  const port = await freePort()
  const child = startSource(HOST_FLAGS, ["packages/host/src/main.ts"], {
    PORT: String(port),
    DATABASE_URL: dbUrl.toString(),
    FRANK_KEY_PEPPER: pepper,
    FRANK_ADMIN_TOKEN: adminToken,
    FRANK_RATE_LIMIT_MULTIPLIER: "1000000",
    FRANK_ALLOW_PRIVATE_NETWORK: "true",
    FRANK_DATA_DIR: `/tmp/frank-bench-scale-${process.pid}`,
    LOG_LEVEL: "warning"
  })
  const host = { process: child, url: `http://127.0.0.1:${port}` }
  hosts.push(host)
  await waitFor(async () => (await fetch(`${host.url}/readyz`)).ok, `host ${hosts.length}`)
}

/** A partner with 5,000 ₣ and a full API key, made through the first host. */
const newPartnerKey = async (name: string) => {
  const base = hosts[0]!.url
  const auth = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" }
  const partner = await json(
    await fetch(`${base}/admin/v1/partners`, { method: "POST", headers: auth, body: JSON.stringify({ name }) })
  )
  const session = await json(
    await fetch(`${base}/admin/v1/partners/${partner.id}/sessions`, { method: "POST", headers: auth, body: "{}" })
  )
  await fetch(`${base}/admin/v1/partners/${partner.id}/credits`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ amountFranks: 5000, kind: "adjustment" })
  })
  const issued = await json(
    await fetch(`${base}/v1/billing/api-keys`, {
      method: "POST",
      headers: { cookie: `service_token=${session.token}`, "content-type": "application/json" },
      body: "{}"
    })
  )
  return { partnerId: String(partner.id), key: String(issued.key) }
}

const newEndpoint = async (key: string, target: string) =>
  String(
    (
      await json(
        await fetch(`${hosts[0]!.url}/v1/webhooks/endpoints`, {
          method: "POST",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body: JSON.stringify({ url: target })
        })
      )
    ).id
  )

interface Target {
  readonly key: string
  readonly endpointId: string
}

/** One autocannon run whose connections are spread over `urls` (autocannon accepts a list; its types say one). */
const cannon = (
  urls: ReadonlyArray<string>,
  options: Omit<autocannon.Options, "url">,
  seconds: number
): Promise<autocannon.Result> =>
  new Promise((done, fail) => {
    autocannon(
      {
        ...options,
        url: [...urls] as unknown as string,
        // A multiple of the hosts: autocannon gives each URL connections / urls.length.
        connections: Math.max(urls.length, Math.floor(CONNECTIONS / urls.length) * urls.length),
        duration: seconds
      },
      (err, result) => (err ? fail(err) : done(result))
    )
  })

const readRound = (urls: ReadonlyArray<string>, key: string, seconds: number) =>
  cannon(urls, { headers: { "x-api-key": key } }, seconds)

let sequence = 0
const writeRound = (urls: ReadonlyArray<string>, targets: ReadonlyArray<Target>, seconds: number) =>
  cannon(
    urls,
    {
      method: "PATCH",
      body: JSON.stringify({ url: "https://bench.invalid/hook" }),
      requests: [
        {
          setupRequest: (req: autocannon.Request) => {
            const t = targets[sequence++ % targets.length]!
            return {
              ...req,
              path: `/v1/webhooks/endpoints/${t.endpointId}`,
              headers: { ...req.headers, "x-api-key": t.key, "content-type": "application/json" }
            }
          }
        }
      ]
    },
    seconds
  )

const sql = new pg.Client({
  connectionString: DatabaseSchema.withSearchPath(dbUrl.toString(), DatabaseSchema.DEFAULT_SCHEMA)
})

/**
 * Commits `n` events with one pending delivery each to the receiver's endpoint in one statement,
 * as a burst of business changes leaves them, then wakes every host as an event commit does.
 * The payload is one representative envelope for all (the receiver reads nothing of it).
 */
const commitBacklog = async (partnerId: string, endpointId: string, n: number) => {
  const payload = JSON.stringify({
    eventType: "webhook.test",
    occurredAt: new Date(0).toISOString(),
    partnerId,
    schemaVersion: 1,
    data: { endpointId }
  })
  await sql.query(
    `WITH now_ms AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS t),
     ev AS (
       INSERT INTO webhook_events (partner_id, id, type, occurred_at, payload)
       SELECT $1, gen_random_uuid(), 'webhook.test', now_ms.t, $3 FROM generate_series(1, $4::int), now_ms
       RETURNING partner_id, id, type, occurred_at
     )
     INSERT INTO webhook_deliveries (partner_id, id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
     SELECT partner_id, gen_random_uuid(), $2::uuid, id, type, 'pending', 0, occurred_at, occurred_at, occurred_at FROM ev`,
    [partnerId, endpointId, payload, n]
  )
  await sql.query("SELECT pg_notify($1, 'bench-scale-out')", [webhookNotifyChannel(DatabaseSchema.DEFAULT_SCHEMA)])
}

/** Commits a backlog and waits until the receiver has every POST and PostgreSQL every delivery delivered; deliveries/s. */
const drain = async (partnerId: string, endpointId: string, n: number) => {
  const before = receiver.count()
  const t0 = performance.now()
  await commitBacklog(partnerId, endpointId, n)
  const deadline = t0 + 600_000
  for (;;) {
    if (performance.now() > deadline) throw new Error("bench/scale-out: the backlog was not drained in 10 minutes")
    if (receiver.count() - before >= n) {
      const left = await sql.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM webhook_deliveries WHERE partner_id = $1 AND status <> 'delivered'",
        [partnerId]
      )
      if ((left.rows[0]?.n ?? 1) === 0) break
    }
    await new Promise((r) => setTimeout(r, 10))
  }
  return n / ((performance.now() - t0) / 1000)
}

interface Measured<A> {
  readonly result: A
  readonly usage: PhaseUsage
}
interface Configuration {
  readonly hosts: number
  readonly deliveries: Measured<number>
  readonly reads: Measured<autocannon.Result>
  readonly writes: Measured<autocannon.Result>
}

const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : "–")
const cores = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : "–")

const report = (runs: ReadonlyArray<Configuration>) => {
  const first = runs[0]!
  console.log(
    `\nbench/scale-out — ${machineCores()} cores shared by PostgreSQL, every host, the receiver and autocannon; backlog ${BACKLOG}, ${SECONDS} s per API round, ${CONNECTIONS} connections spread over the hosts`
  )
  console.log(
    "| hosts | deliveries/s | × 1 host | reads/s | p50 / p99 ms | × 1 host | writes/s | p50 / p99 ms | × 1 host | non-2xx |"
  )
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
  for (const c of runs) {
    const r = c.reads.result
    const w = c.writes.result
    console.log(
      `| ${c.hosts} | ${c.deliveries.result.toFixed(0)} | ${ratio(c.deliveries.result, first.deliveries.result)} | ${r.requests.average.toFixed(0)} | ${r.latency.p50} / ${r.latency.p99} | ${ratio(r.requests.average, first.reads.result.requests.average)} | ${w.requests.average.toFixed(0)} | ${w.latency.p50} / ${w.latency.p99} | ${ratio(w.requests.average, first.writes.result.requests.average)} | ${r.non2xx + r.errors + w.non2xx + w.errors} |`
    )
  }
  console.log(
    "\nWhere it stops — CPU in cores (CPU seconds per second), mean backends per 50 ms sample of pg_stat_activity (active: on CPU / Lock / LWLock / IO / other; idle in transaction = waiting for a host)"
  )
  console.log(
    "| hosts | phase | PostgreSQL cores | hosts' cores (each) | CPU µs per operation, PostgreSQL + hosts | machine busy | on CPU | Lock | LWLock | IO | other | idle in tx |"
  )
  console.log("|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
  for (const c of runs)
    for (const [phase, u, rate] of [
      ["deliveries", c.deliveries.usage, c.deliveries.result],
      ["reads", c.reads.usage, c.reads.result.requests.average],
      ["writes", c.writes.usage, c.writes.result.requests.average]
    ] as const) {
      const w = u.waits
      const each = u.processCores.map(cores)
      const sum = u.processCores.reduce((a, b) => a + b, 0)
      console.log(
        `| ${c.hosts} | ${phase} | ${cores(u.pgCores)} | ${cores(sum)} (${each.join(", ")}) | ${((u.pgCores * 1e6) / rate).toFixed(0)} + ${((sum * 1e6) / rate).toFixed(0)} | ${(u.machineBusy * 100).toFixed(0)} % | ${w.cpu.toFixed(1)} | ${w.lock.toFixed(1)} | ${w.lwlock.toFixed(1)} | ${w.io.toFixed(1)} | ${w.other.toFixed(1)} | ${w.idleInTransaction.toFixed(1)} |`
      )
    }
}

/** Warms the configuration's hosts, then measures deliveries, reads and writes in turn. */
const measureConfiguration = async (
  sampler: Awaited<ReturnType<typeof pgSampler>>,
  fixture: { partnerId: string; endpointId: string; key: string; writeTargets: ReadonlyArray<Target> }
): Promise<Configuration> => {
  const urls = hosts.map((h) => h.url)
  const pids = hosts.map((h) => h.process.pid)
  const readUrls = urls.map((u) => `${u}/v1/billing/balance`)
  // Warm-up: compiled code, pools and plans in every host.
  await drain(fixture.partnerId, fixture.endpointId, Math.min(2000, BACKLOG))
  await readRound(readUrls, fixture.key, Math.min(2, SECONDS))
  await writeRound(urls, fixture.writeTargets, Math.min(2, SECONDS))
  await sql.query("ANALYZE webhook_deliveries, webhook_events, webhook_endpoints")
  const deliveries = await sampler.during(pids, () => drain(fixture.partnerId, fixture.endpointId, BACKLOG))
  const reads = await sampler.during(pids, () => readRound(readUrls, fixture.key, SECONDS))
  const writes = await sampler.during(pids, () => writeRound(urls, fixture.writeTargets, SECONDS))
  return { hosts: hosts.length, deliveries, reads, writes }
}

const main = async () => {
  const load = () => readFileSyncSafe("/proc/loadavg")
  console.log(`bench/scale-out: hosts ${HOSTS.join(", ")}; load average at start ${load()}`)
  await startHost()
  await sql.connect()
  const receiverPartner = await newPartnerKey("Scale receiver")
  const endpointId = await newEndpoint(receiverPartner.key, receiver.url)
  const writeTargets: Array<Target> = []
  for (let p = 0; p < 4; p++) {
    const { key } = await newPartnerKey(`Scale writer ${p}`)
    for (let e = 0; e < 10; e++)
      writeTargets.push({ key, endpointId: await newEndpoint(key, "https://bench.invalid/hook") })
  }
  const fixture = { partnerId: receiverPartner.partnerId, endpointId, key: receiverPartner.key, writeTargets }
  const sampler = await pgSampler(url, db)
  const runs: Array<Configuration> = []
  try {
    for (const n of HOSTS) {
      while (hosts.length < n) await startHost()
      const run = await measureConfiguration(sampler, fixture)
      runs.push(run)
      console.log(
        `${n} host(s): ${run.deliveries.result.toFixed(0)} deliveries/s, ${run.reads.result.requests.average.toFixed(0)} reads/s, ${run.writes.result.requests.average.toFixed(0)} writes/s`
      )
    }
  } finally {
    await sampler.end()
  }
  report(runs)
  console.log(`load average at end ${load()}`)
}

const readFileSyncSafe = (path: string) => {
  try {
    return readFileSync(path, "utf8").split(" ").slice(0, 3).join(" ")
  } catch {
    return "–"
  }
}

try {
  await main()
} finally {
  for (const h of hosts) h.process.kill("SIGTERM")
  receiver.close()
  await sql.end().catch(() => undefined)
  await new Promise((r) => setTimeout(r, 1500))
  await adminStatement(url, `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`)
}
process.exit(0)

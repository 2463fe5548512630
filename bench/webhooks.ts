/**
 * bench/webhooks: webhook deliveries per second from the engine to a local receiver, against
 *   (raw)     a bare undici POST loop at the same concurrency, no database (this receiver's and
 *             this machine's ceiling),
 *   (pg-boss) the same job on pg-boss 10 on the same Postgres: one job per delivery, workers
 *             POST each job's payload and complete it,
 * all in one run, plus event-commit → first-attempt latency p50/p99 at a steady 500 events/s
 * with the worker woken as the host wires it on Postgres (in-process after each commit, other
 * processes by a NOTIFY after commit; NOTIFY=in-transaction measures the store's default instead).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:webhooks
 *   (EVENTS — a list of backlogs —, CONCURRENCY, ROUNDS, RATE, SECONDS, BOSS_WORKERS, BOSS_BATCH, WARMUP override the defaults;
 *   ONLY=engine,live,raw,boss,latency runs a subset; ANALYZE=0 skips the statistics; NOTIFY=in-transaction; PROFILE=file
 *   writes a CPU profile of the last engine round's timed part; HISTORY_DAYS=30 the days of history slots made first)
 *
 * Throughput rounds are interleaved (engine, live engine, raw, pg-boss, then again) and medians
 * reported: the machine is shared and noisy, so only same-run ratios mean anything. Next to
 * each rate the bench prints CPU per delivery, of this process (client, receiver included) and
 * of the Postgres backends serving it, which noise moves much less than rates. A last table puts
 * the 2× pg-boss target in cores: how many the engine's deliveries kept busy, how many twice
 * pg-boss's rate would at the same CPU per delivery, and how busy the whole machine was.
 */
import { randomBytes, randomUUID } from "node:crypto"
import { readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { Session } from "node:inspector/promises"
import type { AddressInfo } from "node:net"
import { SqlClient } from "@effect/sql"
import {
  DatabaseSchema,
  HttpWebhookTransport,
  NodeWebhookSigner,
  PgChannelListener,
  PgNotifyAnnouncer,
  SqlWebhookStore,
  TestDatabase,
  webhookNotifyChannel
} from "@frank/adapters"
import { Access, Events, Ids, Webhooks } from "@frank/core"
import { Effect, Fiber, Layer, Redacted, Stream } from "effect"
import pg from "pg"
import PgBoss from "pg-boss"
import { Agent, request } from "undici"
import { testPartner } from "@frank/core/testing"

const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
/**
 * Backlogs: how many deliveries wait when a throughput round starts, one set of rounds each. The
 * ratio to pg-boss depends on it (pg-boss's fetch sorts its whole queue; docs/performance.md).
 */
const BACKLOGS = (process.env.EVENTS ?? "1000,5000,20000").split(",").map(Number)
if (BACKLOGS.some((n) => !Number.isSafeInteger(n) || n <= 0)) {
  console.error(
    `bench/webhooks: EVENTS must be a comma-separated list of positive integers, got ${JSON.stringify(process.env.EVENTS)}`
  )
  process.exit(2)
}
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 64)
const ROUNDS = Number(process.env.ROUNDS ?? 3)
const RATE = Number(process.env.RATE ?? 500)
const SECONDS = Number(process.env.SECONDS ?? 10)
// pg-boss: 4 workers fetching 16 jobs each = CONCURRENCY POSTs in flight (see pgBossRound).
const BOSS_WORKERS = Number(process.env.BOSS_WORKERS ?? 4)
const BOSS_BATCH = Number(process.env.BOSS_BATCH ?? Math.max(1, Math.floor(CONCURRENCY / BOSS_WORKERS)))
const WARMUP = Number(process.env.WARMUP ?? 3000)
const ONLY = new Set((process.env.ONLY ?? "engine,live,raw,boss,latency").split(","))
/**
 * Statistics on the queue tables before each timed phase (both sides), as autovacuum keeps them
 * on tables in use; the tables here are seconds old. ANALYZE=0 measures without (docs/performance.md).
 */
const ANALYZE = process.env.ANALYZE !== "0"
/**
 * How other processes hear of new events: "after-commit" (the reference host on Postgres: the
 * store sends nothing, the outbox's wake announces with one coalesced NOTIFY at a time, the
 * listener skips this process's own) or "in-transaction" (the SQL store's default: a NOTIFY
 * inside every event-writing transaction, heard by this process's listener too).
 */
const NOTIFY = process.env.NOTIFY ?? "after-commit"
if (NOTIFY !== "after-commit" && NOTIFY !== "in-transaction") {
  console.error(`bench/webhooks: NOTIFY must be after-commit or in-transaction, got ${JSON.stringify(NOTIFY)}`)
  process.exit(2)
}
const NOTIFY_PAYLOAD = `due:${randomUUID()}`
/** A path: the timed part of the last engine round is CPU-profiled there (Chrome .cpuprofile format). */
const PROFILE = process.env.PROFILE
/**
 * Days of history slots made before the rounds (migration 0032): a host that has kept 30 days has
 * about 34 (the retention window and the days ahead), a fresh database four. 0 keeps what it has.
 */
const HISTORY_DAYS = Number(process.env.HISTORY_DAYS ?? 30)
if (!Number.isSafeInteger(HISTORY_DAYS) || HISTORY_DAYS < 0) {
  console.error(
    `bench/webhooks: HISTORY_DAYS must be a non-negative integer, got ${JSON.stringify(process.env.HISTORY_DAYS)}`
  )
  process.exit(2)
}
const DAY_MS = 86_400_000

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
const percentile = (xs: ReadonlyArray<number>, p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? Number.NaN
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** One measured round: deliveries per second and CPU µs per delivery (this process, Postgres backends). */
interface Round {
  readonly rate: number
  readonly clientUs: number
  readonly pgUs: number
  /** Share of all the machine's cores busy during the round (every process; /proc/stat). */
  readonly machineBusy: number
}

// ---------- CPU accounting (Linux /proc; NaN elsewhere) ----------

/** CPU µs (user + system) each process has used so far. */
const cpuOf = (pids: Iterable<number>): Map<number, number> => {
  const out = new Map<number, number>()
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? []
      out.set(pid, (Number(fields[11]) + Number(fields[12])) * 10_000)
    } catch {
      // The backend is gone (or not on this machine).
    }
  }
  return out
}

/**
 * The machine's CPU time so far, all its cores: busy and total, in clock ticks, and how many cores
 * (NaN off Linux). Time a hypervisor took away (steal) is not this machine's work: not busy.
 */
const machineTicks = (): { busy: number; total: number; cores: number } => {
  try {
    const lines = readFileSync("/proc/stat", "utf8").split("\n")
    // cpu  user nice system idle iowait irq softirq steal …
    const ticks = (lines[0] ?? "").trim().split(/\s+/).slice(1, 9).map(Number)
    const total = ticks.reduce((a, b) => a + b, 0)
    return {
      busy: total - (ticks[3] ?? 0) - (ticks[4] ?? 0) - (ticks[7] ?? 0),
      total,
      cores: lines.filter((l) => /^cpu\d/.test(l)).length
    }
  } catch {
    return { busy: Number.NaN, total: Number.NaN, cores: Number.NaN }
  }
}

/** Starts measuring: call the result with the backends' pids at the end (a backend born meanwhile counts from 0). */
const measure = (backendsAtStart: ReadonlyArray<number>) => {
  const client0 = process.cpuUsage()
  const pg0 = cpuOf(backendsAtStart)
  const machine0 = machineTicks()
  const t0 = performance.now()
  return (n: number, backendsAtEnd: ReadonlyArray<number>): Round => {
    const seconds = (performance.now() - t0) / 1000
    const client = process.cpuUsage(client0)
    const machine = machineTicks()
    let pgUs = 0
    for (const [pid, us] of cpuOf(new Set([...backendsAtStart, ...backendsAtEnd]))) pgUs += us - (pg0.get(pid) ?? 0)
    return {
      rate: n / seconds,
      clientUs: (client.user + client.system) / n,
      pgUs: pgUs / n,
      machineBusy: (machine.busy - machine0.busy) / (machine.total - machine0.total)
    }
  }
}

// ---------- the receiver ----------

/**
 * Answers 200 at once and counts requests; after `recordArrivals` it also notes when each event id
 * first arrived (the latency run). Only then: the throughput rounds need the count alone, and a
 * map of every event id ever received grew through the run — the engine's ids are new each round,
 * the other sides' repeat — so the engine's rounds alone paid for its growth (until 2026-11-25 ≈18:45).
 */
const receiver = await new Promise<{
  url: string
  arrivals: Map<string, number>
  count: () => number
  recordArrivals: () => void
}>((done) => {
  const arrivals = new Map<string, number>()
  let count = 0
  let recording = false
  const server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      count++
      const id = req.headers["x-service-event-id"]
      if (recording && typeof id === "string" && !arrivals.has(id)) arrivals.set(id, performance.now())
      res.writeHead(200).end()
    })
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, "127.0.0.1", () =>
    done({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
      arrivals,
      count: () => count,
      recordArrivals: () => {
        arrivals.clear()
        recording = true
      }
    })
  )
})

const waitUntil = async (done: () => boolean | Promise<boolean>, what: string, pollMs = 2, timeoutMs = 300_000) => {
  const deadline = performance.now() + timeoutMs
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`)
    await sleep(pollMs)
  }
}

// A representative payload: the envelope of a billing.settled event (the engine's own envelope
// for webhook.test events is about the same size).
const body = JSON.stringify({
  eventId: randomUUID(),
  eventType: "billing.settled",
  occurredAt: new Date(0).toISOString(),
  partnerId: "p_bench",
  schemaVersion: 1,
  data: { transactionId: randomUUID(), taskId: "task-123", amountFranks: 123.45 }
})

/**
 * The request every side sends is the engine's (spec "Delivery request"): the same body and the
 * same six headers, signed. The raw loop sends one request signed once (it is the HTTP floor:
 * no work per delivery beyond the POST); pg-boss's handler signs each job when it sends it, as
 * a webhook sender built on it must (the timestamp is the send time). Before 2026-11-24 the other
 * sides sent two headers and no signature, so the receiver parsed less for them per request.
 */
const SECRET = `whsec_${randomBytes(24).toString("base64url")}`
const bodyBytes = Buffer.from(body)
// The baselines are plain Node code, not Effect programs: their callers pass the wall clock
// (Date.now), as a sender built on undici or pg-boss would. The engine's side reads Effect's Clock.
const signedHeaders = (eventId: string, nowMs: number): Record<string, string> => {
  const timestamp = Math.floor(nowMs / 1000)
  return {
    "content-type": "application/json",
    "user-agent": Webhooks.USER_AGENT,
    "x-service-event": "billing.settled",
    "x-service-event-id": eventId,
    "x-service-timestamp": String(timestamp),
    "x-service-signature": NodeWebhookSigner.signNow(SECRET, timestamp, bodyBytes)
  }
}

// ---------- raw undici loop ----------

const rawRound = async (n: number): Promise<Round> => {
  const agent = new Agent({ connections: CONCURRENCY })
  const headers = signedHeaders("raw", Date.now())
  let next = 0
  const done = measure([])
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (;;) {
        const i = next++
        if (i >= n) return
        const res = await request(receiver.url, {
          method: "POST",
          dispatcher: agent,
          headers: { ...headers, "x-service-event-id": `raw-${i}` },
          body
        })
        await res.body.dump()
      }
    })
  )
  const round = done(n, [])
  await agent.close()
  return round
}

// ---------- pg-boss ----------

const admin = new pg.Client({ connectionString: url })
await admin.connect()
const BOSS_APP = `frank_bench_boss_${process.pid}`
const bossBackends = async () =>
  (
    await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = $1", [BOSS_APP])
  ).rows.map((r) => r.pid)

/**
 * pg-boss 10 tuned for speed. Its worker is a poll loop: fetch up to `batchSize` jobs, run the
 * handler, complete the batch (one statement, not awaited), then sleep out the rest of the
 * polling interval (0.5 s at least) unless the fetch and the handler took longer. Left at that,
 * 4 workers × 16 jobs would cap it at 128 jobs/s; so a worker that got a full batch is notified
 * (`notifyWorker`, public API) and fetches again at once, and only an empty queue makes it wait.
 * BOSS_WORKERS × BOSS_BATCH = CONCURRENCY POSTs in flight at most, all of a batch at once.
 * Timed until the receiver got every POST and every job is `completed` in Postgres.
 */
const pgBossRound = async (n: number): Promise<Round> => {
  const schema = `pgboss_bench_${randomUUID().replaceAll("-", "").slice(0, 12)}`
  const boss = new PgBoss({
    connectionString: url,
    schema,
    max: 10,
    application_name: BOSS_APP,
    supervise: false,
    schedule: false,
    migrate: true
  })
  boss.on("error", (e) => console.error("pg-boss:", e))
  await boss.start()
  const queue = "webhook-deliveries"
  await boss.createQueue(queue)
  // Enqueued untimed, like the engine's events: only delivery is measured.
  for (let i = 0; i < n; i += 1000)
    await boss.insert(
      Array.from({ length: Math.min(1000, n - i) }, (_, j) => ({
        name: queue,
        data: { url: receiver.url, body, id: `boss-${i + j}` }
      }))
    )
  if (ANALYZE) await admin.query(`ANALYZE ${schema}.job`)
  const agent = new Agent({ connections: CONCURRENCY })
  const before = receiver.count()
  const done = measure(await bossBackends())
  const completed = async () =>
    ((
      await admin.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${schema}.job WHERE name = $1 AND state = 'completed'`,
        [queue]
      )
    ).rows[0]?.n ?? 0) >= n
  for (let w = 0; w < BOSS_WORKERS; w++) {
    const id: string = await boss.work<{ url: string; body: string; id: string }>(
      queue,
      { batchSize: BOSS_BATCH, pollingIntervalSeconds: 0.5 },
      async (jobs) => {
        await Promise.all(
          jobs.map(async (job) => {
            const res = await request(job.data.url, {
              method: "POST",
              dispatcher: agent,
              headers: signedHeaders(job.data.id, Date.now()),
              body: job.data.body
            })
            await res.body.dump()
            if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`HTTP ${res.statusCode}`)
          })
        )
        if (jobs.length === BOSS_BATCH) boss.notifyWorker(id)
      }
    )
  }
  await waitUntil(() => receiver.count() - before >= n, "pg-boss deliveries")
  await waitUntil(completed, "pg-boss completions", 5)
  const round = done(n, await bossBackends())
  await boss.stop({ graceful: false, wait: true })
  await agent.close()
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  return round
}

// ---------- the engine ----------

const workerConfig = { ...Webhooks.defaultWorkerConfig, concurrency: CONCURRENCY, batchSize: CONCURRENCY }
const Engine = Layer.mergeAll(Webhooks.Webhooks.layer, Webhooks.DeliveryWorker.layer(workerConfig)).pipe(
  Layer.provideMerge(Events.Outbox.layerWithWakeup),
  Layer.provideMerge(
    NOTIFY === "after-commit"
      ? Layer.mergeAll(
          SqlWebhookStore.layerWith({ notify: "none" }),
          PgNotifyAnnouncer.layer({ payload: NOTIFY_PAYLOAD })
        )
      : SqlWebhookStore.layerWith({ notify: "in-transaction" })
  ),
  Layer.provideMerge(
    Layer.mergeAll(
      Ids.Ids.layer,
      NodeWebhookSigner.layer,
      Access.Secrets.layer(Redacted.make("bench-pepper")),
      Webhooks.WebhookSettings.layer({ allowPrivateNetwork: true }),
      HttpWebhookTransport.layerWith({ allowPrivateNetwork: true })
    )
  ),
  Layer.provideMerge(TestDatabase.layerPostgres(url, { maxConnections: 10 }))
)

/** The pool's backend pids: as many concurrent sleeps as the pool has connections. */
const engineBackends = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* Effect.forEach(
    Array.from({ length: 10 }),
    () => sql<{ pid: number }>`SELECT pg_backend_pid() AS pid, pg_sleep(0.05)`,
    {
      concurrency: 10
    }
  )
  return [...new Set(rows.flatMap((r) => r.map((x) => x.pid)))]
})

const newEndpoint = Effect.gen(function* () {
  const webhooks = yield* Webhooks.Webhooks
  const partnerId = testPartner(`p_${randomUUID()}`)
  const endpoint = yield* webhooks.createEndpoint(partnerId, { url: receiver.url })
  return {
    partnerId,
    target: { _tag: "Endpoint", endpointId: endpoint.id } as const,
    data: { endpointId: endpoint.id }
  }
})

/** Each emit is its own transaction (one statement), as a business change with one event, followed by the wake every service calls after its commit. */
const emitAll = (n: number, ep: Effect.Effect.Success<typeof newEndpoint>) =>
  Effect.flatMap(Events.Outbox, (outbox) =>
    Effect.forEach(
      Array.from({ length: n }),
      () => Effect.zipRight(outbox.emit(ep.partnerId, { type: "webhook.test", data: ep.data }, ep.target), outbox.wake),
      {
        concurrency: 8,
        discard: true
      }
    )
  )

const allDelivered = (partnerId: Ids.PartnerId, n: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{
        n: number
      }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE partner_id = ${partnerId} AND status = 'delivered'`,
      (rows) => (rows[0]?.n ?? 0) >= n
    )
  )

/** Waits until the receiver got `n` more POSTs and Postgres has all `n` deliveries `delivered`. */
const awaitDelivered = (partnerId: Ids.PartnerId, n: number, before: number) =>
  Effect.gen(function* () {
    yield* Effect.promise(() => waitUntil(() => receiver.count() - before >= n, "engine deliveries"))
    while (!(yield* allDelivered(partnerId, n))) yield* Effect.sleep(5)
  })

/**
 * The host's listener on Postgres (packages/host/src/workers/deliveryWorker.ts): other processes'
 * NOTIFYs wake the worker; with NOTIFY=after-commit this process's own are skipped, as the host does.
 */
const forkListener = Effect.gen(function* () {
  const wakeup = yield* Events.DeliveryWakeup
  const schema = yield* DatabaseSchema.DatabaseSchema
  const heard = PgChannelListener.listen(
    { url: Redacted.make(url), applicationName: "frank-bench-listen" },
    webhookNotifyChannel(schema.name)
  ).pipe(Stream.filter((payload) => NOTIFY === "in-transaction" || payload !== NOTIFY_PAYLOAD))
  return yield* Effect.fork(Stream.runForEach(heard, () => wakeup.signal))
})

/** Starts the V8 profiler; the answer stops it and writes the profile to PROFILE. */
const startProfile = async () => {
  const session = new Session()
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.start")
  return async () => {
    const { profile } = await session.post("Profiler.stop")
    writeFileSync(PROFILE as string, JSON.stringify(profile))
    session.disconnect()
  }
}

/** (A) All `n` events enqueued first (untimed), then the worker is started and timed until all are delivered. */
const engineRound = (n: number) =>
  Effect.gen(function* () {
    const ep = yield* newEndpoint
    yield* emitAll(n, ep)
    const worker = yield* Webhooks.DeliveryWorker
    const before = receiver.count()
    const backends = yield* engineBackends
    if (ANALYZE)
      yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`ANALYZE webhook_deliveries, webhook_events, webhook_endpoints`
      )
    const profiler = PROFILE === undefined ? undefined : yield* Effect.promise(startProfile)
    const done = measure(backends)
    const fiber = yield* Effect.fork(worker.run)
    yield* awaitDelivered(ep.partnerId, n, before)
    const round = done(n, backends)
    if (profiler !== undefined) yield* Effect.promise(profiler)
    yield* Fiber.interrupt(fiber)
    return round
  })

/** (A′) The worker runs (woken by NOTIFY) while the `n` events are emitted: timed from the first emit to the last delivery. */
const liveRound = (n: number) =>
  Effect.gen(function* () {
    const ep = yield* newEndpoint
    const worker = yield* Webhooks.DeliveryWorker
    const listener = yield* forkListener
    const fiber = yield* Effect.fork(worker.run)
    yield* Effect.sleep(200)
    const before = receiver.count()
    const backends = yield* engineBackends
    const done = measure(backends)
    yield* emitAll(n, ep)
    yield* awaitDelivered(ep.partnerId, n, before)
    const round = done(n, backends)
    yield* Fiber.interrupt(fiber)
    yield* Fiber.interrupt(listener)
    return round
  })

/** (D) Steady RATE events/s, one per transaction, worker woken by NOTIFY: commit → first attempt at the receiver. */
const latencyRun = Effect.gen(function* () {
  const outbox = yield* Events.Outbox
  const worker = yield* Webhooks.DeliveryWorker
  const ep = yield* newEndpoint
  const listener = yield* forkListener
  const fiber = yield* Effect.fork(worker.run)
  yield* Effect.sleep(500)
  receiver.recordArrivals()
  const committed = new Map<string, number>()
  const total = RATE * SECONDS
  const t0 = performance.now()
  yield* Effect.forEach(
    Array.from({ length: total }, (_, i) => i),
    (i) =>
      Effect.gen(function* () {
        const wait = t0 + (i * 1000) / RATE - performance.now()
        if (wait > 0) yield* Effect.sleep(wait)
        // A bare emit is one statement: it has committed when it returns (and with NOTIFY=in-transaction
        // Postgres sent NOTIFY at commit); then the wake every service calls after its commit.
        const { event } = yield* outbox.emit(ep.partnerId, { type: "webhook.test", data: ep.data }, ep.target)
        committed.set(event.id, performance.now())
        yield* outbox.wake
      }),
    { concurrency: 16, discard: true }
  )
  const emitSeconds = (performance.now() - t0) / 1000
  yield* Effect.promise(() => waitUntil(() => receiver.arrivals.size >= total, "latency-run deliveries"))
  yield* Fiber.interrupt(fiber)
  yield* Fiber.interrupt(listener)
  // An arrival can precede the emit's return by a hair (the worker is that quick): count it as 0.
  const latencies = [...committed].map(([id, at]) => Math.max(0, (receiver.arrivals.get(id) ?? Number.NaN) - at))
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: Math.max(...latencies),
    achieved: total / emitSeconds
  }
})

const show = (r: Round) =>
  `${r.rate.toFixed(0)}/s (${r.clientUs.toFixed(0)} µs client + ${r.pgUs.toFixed(0)} µs pg per delivery)`
const medianRound = (rs: ReadonlyArray<Round>): Round => ({
  rate: median(rs.map((r) => r.rate)),
  clientUs: median(rs.map((r) => r.clientUs)),
  pgUs: median(rs.map((r) => r.pgUs)),
  machineBusy: median(rs.map((r) => r.machineBusy))
})

/** A table cell: rate (client + Postgres µs per delivery), or – for a side not run. */
const cell = (x: Round, withPg = true) =>
  Number.isNaN(x.rate)
    ? "–"
    : `${x.rate.toFixed(0)} (${x.clientUs.toFixed(0)}${withPg ? ` + ${x.pgUs.toFixed(0)}` : ""})`
const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : "–")

const program = Effect.gen(function* () {
  console.log(
    `bench/webhooks: backlogs ${BACKLOGS.join(", ")} deliveries, concurrency ${CONCURRENCY}, ${ROUNDS} rounds each, NOTIFY ${NOTIFY}, pg-boss ${BOSS_WORKERS} workers × batch ${BOSS_BATCH}; load average ${(
      yield* Effect.sync(() => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "))
    ).trim()}`
  )
  if (HISTORY_DAYS > 0) {
    const sql = yield* SqlClient.SqlClient
    // From HISTORY_DAYS back to three days ahead, as retention keeps them.
    yield* sql`SELECT webhook_prepare_partitions(${Date.now() - HISTORY_DAYS * DAY_MS}, ${DAY_MS}, ${HISTORY_DAYS + 3})`
    const [slots] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_history_partitions`
    console.log(`history slots: ${slots?.n}`)
  }
  // Warm-up of every side measured, long enough for the JIT to settle (with 300 deliveries the
  // first rounds ran up to 30 % slower than the last): connections, compiled code, plans.
  if (ONLY.has("engine") || ONLY.has("live") || ONLY.has("latency")) yield* engineRound(WARMUP)
  yield* Effect.promise(() => rawRound(WARMUP))
  if (ONLY.has("boss")) yield* Effect.promise(() => pgBossRound(WARMUP))
  const results: Array<{ backlog: number; engine: Round; live: Round; raw: Round; boss: Round }> = []
  for (const backlog of BACKLOGS) {
    const sides: Record<"engine" | "live" | "raw" | "boss", Array<Round>> = { engine: [], live: [], raw: [], boss: [] }
    for (let r = 0; r < ROUNDS; r++) {
      if (ONLY.has("engine")) sides.engine.push(yield* engineRound(backlog))
      if (ONLY.has("live")) sides.live.push(yield* liveRound(backlog))
      if (ONLY.has("raw")) sides.raw.push(yield* Effect.promise(() => rawRound(backlog)))
      if (ONLY.has("boss")) sides.boss.push(yield* Effect.promise(() => pgBossRound(backlog)))
      const last = (k: keyof typeof sides) => {
        const round = sides[k][r]
        return round === undefined ? "-" : show(round)
      }
      console.log(
        `backlog ${backlog}, round ${r + 1}: engine ${last("engine")}; engine emitting meanwhile ${last("live")}; raw ${last("raw")}; pg-boss ${last("boss")}`
      )
    }
    results.push({
      backlog,
      engine: medianRound(sides.engine),
      live: medianRound(sides.live),
      raw: medianRound(sides.raw),
      boss: medianRound(sides.boss)
    })
  }
  const lat = ONLY.has("latency") ? yield* latencyRun : undefined
  console.log("")
  console.log(
    "Medians of the rounds; deliveries/s (CPU µs per delivery, client + Postgres). Targets: engine ≥ 2× pg-boss at backlogs of 5,000 and more (1,000 reported only), ≥ 0.5× raw loop."
  )
  console.log("")
  console.log(
    "| backlog | engine (queued first) | engine (emitting meanwhile) | raw undici loop | pg-boss | engine / pg-boss | engine / raw loop |"
  )
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
  for (const { backlog, engine: e, live: l, raw: r, boss: b } of results)
    console.log(
      `| ${backlog} | ${cell(e)} | ${cell(l)} | ${cell(r, false)} | ${cell(b)} | ${ratio(e.rate, b.rate)} | ${ratio(e.rate, r.rate)} |`
    )
  // What the 2× target asks of this machine: at the engine's CPU per delivery in this run (its
  // process, receiver included, plus its Postgres backends), the cores twice pg-boss's rate would
  // keep busy, against the cores the engine's rounds did keep busy and the machine's own.
  if (ONLY.has("engine") && ONLY.has("boss")) {
    // The cores /proc/stat counts (every one of the machine's, whatever this process may use).
    const cores = machineTicks().cores
    const busyCores = (perDeliveryUs: number, rate: number) => (rate * perDeliveryUs) / 1e6
    console.log("")
    console.log(
      `Cores (of this machine's ${cores}) for the 2× pg-boss target at the engine's CPU per delivery (client + Postgres):`
    )
    console.log("")
    console.log(
      "| backlog | engine's deliveries kept busy | 2× pg-boss would keep busy | machine busy, engine / pg-boss rounds (all processes) |"
    )
    console.log("| ---: | ---: | ---: | ---: |")
    for (const { backlog, engine: e, boss: b } of results) {
      const us = e.clientUs + e.pgUs
      console.log(
        `| ${backlog} | ${busyCores(us, e.rate).toFixed(2)} | ${busyCores(us, 2 * b.rate).toFixed(2)} | ${(e.machineBusy * cores).toFixed(2)} / ${(b.machineBusy * cores).toFixed(2)} |`
      )
    }
  }
  if (lat !== undefined) {
    console.log("")
    console.log(`| commit → first attempt (${lat.achieved.toFixed(0)} events/s for ${SECONDS} s) | ms | target |`)
    console.log("| --- | ---: | --- |")
    console.log(`| p50 | ${lat.p50.toFixed(1)} | |`)
    console.log(`| p99 | ${lat.p99.toFixed(1)} | ≤ 200 ms |`)
    console.log(`| max | ${lat.max.toFixed(1)} | |`)
  }
})

Effect.runPromise(program.pipe(Effect.provide(Engine), Effect.withTracerEnabled(false))).then(
  async () => {
    await admin.end()
    process.exit(0)
  },
  (e) => {
    console.error(e)
    process.exit(1)
  }
)

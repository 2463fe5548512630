/**
 * bench/webhooks: webhook deliveries per second from the engine to a local receiver, against
 *   (a) a raw undici POST loop with the same concurrency (the ceiling of this receiver and machine),
 *   (b) the same job built on pg-boss 10 on the same Postgres (a job per delivery, workers POST),
 * all in one run, plus event-commit → first-attempt latency p50/p99 at a steady 500 events/s with
 * Postgres LISTEN/NOTIFY waking the worker, as the host does.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:webhooks
 *   (EVENTS, CONCURRENCY, ROUNDS, RATE, SECONDS override the defaults)
 *
 * Throughput rounds are interleaved (engine, raw, pg-boss, engine, …) and medians reported: the
 * machines are shared and noisy, so only same-run ratios mean anything.
 */
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { httpWebhookTransportLayer, postgresTestDatabase, SqlWebhookStore, WEBHOOK_NOTIFY_CHANNEL, withSearchPath } from "@frank/adapters"
import { DeliveryWakeup, DeliveryWorker, Ids, Outbox, Secrets, Webhooks, WebhookSettings } from "@frank/core"
import { Effect, Fiber, Layer, Redacted, Stream } from "effect"
import PgBoss from "pg-boss"
import { Agent, request } from "undici"

const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
const EVENTS = Number(process.env.EVENTS ?? 3000)
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 64)
const ROUNDS = Number(process.env.ROUNDS ?? 3)
const RATE = Number(process.env.RATE ?? 500)
const SECONDS = Number(process.env.SECONDS ?? 10)

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN
const percentile = (xs: ReadonlyArray<number>, p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? Number.NaN

/** The receiver: answers 200 at once and notes when each event id first arrived. */
const receiver = await new Promise<{ url: string; arrivals: Map<string, number>; count: () => number; reset: () => void }>((done) => {
  const arrivals = new Map<string, number>()
  let count = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      count++
      const id = req.headers["x-service-event-id"]
      if (typeof id === "string" && !arrivals.has(id)) arrivals.set(id, performance.now())
      res.writeHead(200).end()
    })
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, "127.0.0.1", () =>
    done({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
      arrivals,
      count: () => count,
      reset: () => {
        count = 0
        arrivals.clear()
      }
    })
  )
})

const waitUntil = async (done: () => boolean, what: string, timeoutMs = 300_000) => {
  const deadline = performance.now() + timeoutMs
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 2))
  }
}

// A representative payload: a billing.settled envelope.
const body = JSON.stringify({
  eventId: randomUUID(),
  eventType: "billing.settled",
  occurredAt: new Date(0).toISOString(),
  partnerId: "p_bench",
  schemaVersion: 1,
  data: { transactionId: randomUUID(), taskId: "task-123", amountFranks: 123.45 }
})

// ---------- (a) raw undici loop ----------
const rawLoop = async (n: number): Promise<number> => {
  const agent = new Agent({ connections: CONCURRENCY })
  let next = 0
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (;;) {
        const i = next++
        if (i >= n) return
        const res = await request(receiver.url, {
          method: "POST",
          dispatcher: agent,
          headers: { "content-type": "application/json", "x-service-event-id": `raw-${i}` },
          body
        })
        await res.body.dump()
      }
    })
  )
  const seconds = (performance.now() - t0) / 1000
  await agent.close()
  return n / seconds
}

// ---------- (b) pg-boss ----------
const pgBossRound = async (n: number): Promise<number> => {
  const schema = `pgboss_bench_${randomUUID().replaceAll("-", "").slice(0, 12)}`
  const boss = new PgBoss({ connectionString: url, schema, max: 10, supervise: false, schedule: false, migrate: true })
  boss.on("error", (e) => console.error("pg-boss:", e))
  await boss.start()
  const queue = "webhook-deliveries"
  await boss.createQueue(queue)
  // Enqueue untimed, like the engine's events: only delivery is measured.
  for (let i = 0; i < n; i += 1000)
    await boss.insert(Array.from({ length: Math.min(1000, n - i) }, (_, j) => ({ name: queue, data: { url: receiver.url, body, id: `boss-${i + j}` } })))
  const agent = new Agent({ connections: CONCURRENCY })
  const before = receiver.count()
  const t0 = performance.now()
  // Same concurrency: WORKERS pollers fetching BATCH jobs each, all POSTs of a batch in parallel.
  const WORKERS = 8
  const BATCH = CONCURRENCY / WORKERS
  for (let w = 0; w < WORKERS; w++)
    await boss.work<{ url: string; body: string; id: string }>(queue, { batchSize: BATCH, pollingIntervalSeconds: 0.5 }, async (jobs) => {
      await Promise.all(
        jobs.map(async (job) => {
          const res = await request(job.data.url, {
            method: "POST",
            dispatcher: agent,
            headers: { "content-type": "application/json", "x-service-event-id": job.data.id },
            body: job.data.body
          })
          await res.body.dump()
          if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`HTTP ${res.statusCode}`)
        })
      )
    })
  await waitUntil(() => receiver.count() - before >= n, "pg-boss deliveries")
  const seconds = (performance.now() - t0) / 1000
  await boss.stop({ graceful: false, wait: true })
  await agent.close()
  const admin = new (await import("pg")).default.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  await admin.end()
  return n / seconds
}

// ---------- the engine ----------
const workerConfig = { concurrency: CONCURRENCY, batchSize: CONCURRENCY, leaseMs: 60_000, pollIntervalMs: 1_000, drainMs: 12_000 }
const Engine = Layer.mergeAll(Webhooks.layer, DeliveryWorker.layer(workerConfig)).pipe(
  Layer.provideMerge(Outbox.live),
  Layer.provideMerge(SqlWebhookStore),
  Layer.provideMerge(
    Layer.mergeAll(
      Ids.Live,
      Secrets.layer(Redacted.make("bench-pepper")),
      WebhookSettings.layer({ allowPrivateNetwork: true }),
      httpWebhookTransportLayer({ allowPrivateNetwork: true })
    )
  ),
  Layer.provideMerge(postgresTestDatabase(url, { maxConnections: 10 }))
)

/** Enqueues `n` events (untimed), then times the worker delivering all of them. */
const engineRound = (n: number) =>
  Effect.gen(function* () {
    const webhooks = yield* Webhooks
    const outbox = yield* Outbox
    const sql = yield* SqlClient.SqlClient
    const partnerId = `p_${randomUUID()}`
    const endpoint = yield* webhooks.createEndpoint(partnerId, { url: receiver.url })
    yield* Effect.forEach(
      Array.from({ length: n }),
      () => outbox.emit(partnerId, { type: "webhook.test", data: { endpointId: endpoint.id } }, { _tag: "Endpoint", endpointId: endpoint.id }),
      { concurrency: 8, discard: true }
    )
    const before = receiver.count()
    const worker = yield* DeliveryWorker
    const t0 = performance.now()
    const fiber = yield* Effect.fork(worker.run)
    yield* Effect.promise(() => waitUntil(() => receiver.count() - before >= n, "engine deliveries"))
    const seconds = (performance.now() - t0) / 1000
    yield* Fiber.interrupt(fiber)
    const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE partner_id = ${partnerId} AND status = 'delivered'`
    if (row?.n !== n) throw new Error(`engine round: ${row?.n} of ${n} deliveries recorded as delivered`)
    return n / seconds
  })

/** Steady RATE events/s, one per transaction, worker woken by Postgres NOTIFY: commit → first attempt. */
const latencyRun = Effect.gen(function* () {
  const webhooks = yield* Webhooks
  const outbox = yield* Outbox
  const pg = yield* PgClient.PgClient
  const wakeup = yield* DeliveryWakeup
  const worker = yield* DeliveryWorker
  const partnerId = `p_${randomUUID()}`
  const endpoint = yield* webhooks.createEndpoint(partnerId, { url: receiver.url })
  const listener = yield* Effect.fork(Stream.runForEach(pg.listen(WEBHOOK_NOTIFY_CHANNEL), () => wakeup.signal))
  const fiber = yield* Effect.fork(worker.run)
  yield* Effect.sleep(500)
  receiver.reset()
  const committed = new Map<string, number>()
  const total = RATE * SECONDS
  const t0 = performance.now()
  yield* Effect.forEach(
    Array.from({ length: total }, (_, i) => i),
    (i) =>
      Effect.gen(function* () {
        const due = t0 + (i * 1000) / RATE
        const wait = due - performance.now()
        if (wait > 0) yield* Effect.sleep(wait)
        // A bare emit is one statement: it commits on return, and Postgres sends NOTIFY at commit.
        const { event } = yield* outbox.emit(partnerId, { type: "webhook.test", data: { endpointId: endpoint.id } }, { _tag: "Endpoint", endpointId: endpoint.id })
        committed.set(event.id, performance.now())
      }),
    { concurrency: 16, discard: true }
  )
  yield* Effect.promise(() => waitUntil(() => receiver.arrivals.size >= total, "latency-run deliveries"))
  yield* Fiber.interrupt(fiber)
  yield* Fiber.interrupt(listener)
  const latencies = [...committed].map(([id, at]) => (receiver.arrivals.get(id) ?? Number.NaN) - at)
  const achieved = total / ((performance.now() - t0) / 1000)
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: Math.max(...latencies), achieved }
})

const program = Effect.gen(function* () {
  console.log(`bench/webhooks: ${EVENTS} deliveries per round, concurrency ${CONCURRENCY}, ${ROUNDS} rounds; PostgreSQL ${withSearchPath(url, "…")}`)
  yield* engineRound(200) // warm-up: JIT, connections, prepared statements
  yield* Effect.promise(() => rawLoop(200))
  const engine: Array<number> = []
  const raw: Array<number> = []
  const boss: Array<number> = []
  for (let r = 0; r < ROUNDS; r++) {
    engine.push(yield* engineRound(EVENTS))
    raw.push(yield* Effect.promise(() => rawLoop(EVENTS)))
    boss.push(yield* Effect.promise(() => pgBossRound(EVENTS)))
    console.log(`round ${r + 1}: engine ${engine[r]?.toFixed(0)}/s, raw ${raw[r]?.toFixed(0)}/s, pg-boss ${boss[r]?.toFixed(0)}/s`)
  }
  const lat = yield* latencyRun
  const e = median(engine)
  const r = median(raw)
  const b = median(boss)
  console.log("")
  console.log("| figure | value | target |")
  console.log("| --- | --- | --- |")
  console.log(`| engine deliveries/s (median) | ${e.toFixed(0)} | |`)
  console.log(`| raw undici loop/s (median) | ${r.toFixed(0)} | |`)
  console.log(`| pg-boss deliveries/s (median) | ${b.toFixed(0)} | |`)
  console.log(`| engine / pg-boss | ${(e / b).toFixed(2)}× | ≥ 2× |`)
  console.log(`| engine / raw loop | ${(e / r).toFixed(2)}× | ≥ 0.5× |`)
  console.log(`| commit → first attempt p50 at ${lat.achieved.toFixed(0)} events/s | ${lat.p50.toFixed(1)} ms | |`)
  console.log(`| commit → first attempt p99 | ${lat.p99.toFixed(1)} ms | ≤ 200 ms |`)
  console.log(`| commit → first attempt max | ${lat.max.toFixed(1)} ms | |`)
})

Effect.runPromise(program.pipe(Effect.provide(Engine), Effect.withTracerEnabled(false))).then(
  () => process.exit(0),
  (e) => {
    console.error(e)
    process.exit(1)
  }
)

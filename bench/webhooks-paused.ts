/**
 * bench/webhooks-paused: what a paused endpoint's backlog costs every other partner's claims.
 *
 * Two fresh schemas in one run. In each, one active endpoint has CLAIMS × 64 due deliveries and
 * the worker's claim (`DeliveryQueue.claimDue`, 64 rows) is timed until it has taken them all. In
 * the second, another partner's endpoint also holds BACKLOG pending deliveries, older than all of
 * them, and was paused through the store (`modifyEndpoint`, as `PATCH {active: false}` does).
 * The ratio is the cost of that backlog to a claim: 1.00× means none (migration 0011 keeps a
 * paused endpoint's deliveries out of the due index; before it, 20,000 made claims ≈ 8× slower).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:webhooks-paused
 *   (BACKLOG, default 20000, and CLAIMS, default 50, override the defaults)
 *
 * With `--rates` (`npm run bench:webhooks-rates`) it measures instead what per-endpoint rates
 * (migration 0029) cost the same claims, three sides in one run: no endpoint limited (the claim's
 * single statement); another partner's endpoint limited (a row in `webhook_endpoint_rates`, so
 * the claim runs in rounds, but no candidate is limited); the claimed endpoint itself limited at
 * 10,000/s (every claim takes its rate, nothing deferred). Claims move the clock 10 ms each
 * (6,400 deliveries/s, under the limit and its slots) on every side alike. ROUNDS (default 5)
 * rounds in rotating order, medians of the wall time and of the PostgreSQL backends' CPU.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlWebhookStore, TestDatabase } from "@frank/adapters"
import { Ids } from "@frank/core"
import { Effect, Layer } from "effect"
import { cpuSeconds } from "./support/hostProcess.js"
import { databaseUrlOrExit } from "./support/local.js"
import { testPartner } from "@frank/core/testing"
import { DeliveryQueue, EndpointStore } from "@frank/core/stores"

const url = databaseUrlOrExit("bench/webhooks-paused")
const BACKLOG = Number(process.env.BACKLOG ?? 20_000)
const CLAIMS = Number(process.env.CLAIMS ?? 50)
/** `--rates` only: rounds of the three sides. */
const ROUNDS = Number(process.env.ROUNDS ?? 5)
const CLAIM_ROWS = 64
const RATES = process.argv.includes("--rates")
const PAUSED = { partnerId: testPartner("p_paused"), id: Ids.EndpointId.make("00000000-0000-0000-0000-00000000000a") }
const ACTIVE = { partnerId: testPartner("p_active"), id: Ids.EndpointId.make("00000000-0000-0000-0000-00000000000b") }

/** Writes `n` pending deliveries of one endpoint, due at `from` + 1 … `from` + n (one event: claims do not read it twice). */
const pendingDeliveries = (endpoint: typeof PAUSED, n: number, from: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.zipRight(
      sql`INSERT INTO webhook_endpoints (partner_id, id, url, event_types, active, secret, created_at, updated_at)
        VALUES (${endpoint.partnerId}, ${endpoint.id}::uuid, 'https://receiver.example/hook', NULL, true, 'whsec_bench', 0, 0)`,
      Effect.zipRight(
        sql`INSERT INTO webhook_events (partner_id, id, type, occurred_at, payload) VALUES (${endpoint.partnerId}, ${endpoint.id}::uuid, 'webhook.test', 0, '{}')`,
        sql`INSERT INTO webhook_deliveries (partner_id, id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
          SELECT ${endpoint.partnerId}, gen_random_uuid(), ${endpoint.id}::uuid, ${endpoint.id}::uuid, 'webhook.test', 'pending', 0, ${from} + g, ${from} + g, ${from} + g
          FROM generate_series(1, ${n}) g`
      )
    )
  )

/** What stands beside the claimed endpoint: a paused backlog, or a rate limit somewhere. */
type Side =
  | { readonly _tag: "paused"; readonly backlog: number }
  | { readonly _tag: "limited"; readonly which: "none" | "other" | "claimed" }

/** Sets the endpoint's rate as `PATCH {rateLimitPerSecond}` does. */
const limit = (endpoint: typeof PAUSED, perSecond: number) =>
  Effect.flatMap(EndpointStore, (store) =>
    store.modifyEndpoint(endpoint.partnerId, endpoint.id, (e) => ({ ...e, rateLimitPerSecond: perSecond }))
  )

/** Milliseconds per claim, on a fresh schema, beside `side`. */
const claimMs = (side: Side) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* DeliveryQueue
    const paused = side._tag === "paused" ? side.backlog : 0
    if (paused > 0) {
      yield* pendingDeliveries(PAUSED, paused, 0)
      yield* (yield* EndpointStore).modifyEndpoint(PAUSED.partnerId, PAUSED.id, (e) => ({
        ...e,
        active: false
      }))
    }
    yield* pendingDeliveries(ACTIVE, CLAIMS * CLAIM_ROWS, paused)
    if (side._tag === "limited" && side.which === "other") {
      // Another partner's limited endpoint, with nothing due.
      yield* pendingDeliveries(PAUSED, 0, 0)
      yield* limit(PAUSED, 5)
    }
    if (side._tag === "limited" && side.which === "claimed") yield* limit(ACTIVE, 10_000)
    yield* sql`ANALYZE webhook_deliveries, webhook_endpoints, webhook_events`
    const now = paused + CLAIMS * CLAIM_ROWS + 1
    yield* store.claimDue(now, 60_000, 1, "warm-up")
    const step = RATES ? 10 : 0
    // CPU of this database's backends (the claims' own): noise on a shared machine moves it much
    // less than the wall time.
    const pids = (yield* sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`).map(
      (r) => r.pid
    )
    const pgCpu = () => pids.reduce((sum, pid) => sum + (cpuSeconds(pid) || 0), 0)
    const cpu0 = pgCpu()
    const t0 = performance.now()
    let claimed = 1
    for (let i = 0; i < CLAIMS; i++)
      claimed += (yield* store.claimDue(now + (i + 1) * step, 60_000, CLAIM_ROWS, `bench-${i}`)).length
    const ms = (performance.now() - t0) / CLAIMS
    const cpuMs = ((pgCpu() - cpu0) * 1000) / CLAIMS
    // Every active delivery was taken (none deferred), none of the paused endpoint's.
    if (claimed !== CLAIMS * CLAIM_ROWS)
      throw new Error(`bench/webhooks-paused: claimed ${claimed} of ${CLAIMS * CLAIM_ROWS} (${JSON.stringify(side)})`)
    return { ms, cpuMs }
  }).pipe(Effect.provide(SqlWebhookStore.layer.pipe(Layer.provideMerge(TestDatabase.layerPostgres(url)))))

const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length

/** The paused-backlog comparison (the default). */
const pausedProgram = Effect.gen(function* () {
  // Interleaved, twice each, averaged: the machine is shared.
  const base: Array<number> = []
  const withBacklog: Array<number> = []
  for (let r = 0; r < 2; r++) {
    base.push((yield* claimMs({ _tag: "paused", backlog: 0 })).ms)
    withBacklog.push((yield* claimMs({ _tag: "paused", backlog: BACKLOG })).ms)
  }
  console.log(`bench/webhooks-paused: ${CLAIMS} claims of ${CLAIM_ROWS} rows`)
  console.log("")
  console.log("| paused backlog | ms per claim | ratio to none |")
  console.log("| ---: | ---: | ---: |")
  console.log(`| 0 | ${mean(base).toFixed(2)} | 1.00× |`)
  console.log(`| ${BACKLOG} | ${mean(withBacklog).toFixed(2)} | ${(mean(withBacklog) / mean(base)).toFixed(2)}× |`)
})

/** `--rates`: the claim with no endpoint limited, another one limited, the claimed one limited. */
const ratesProgram = Effect.gen(function* () {
  const sides = ["none", "other", "claimed"] as const
  type Sample = { readonly ms: number; readonly cpuMs: number }
  const samples: Record<(typeof sides)[number], Array<Sample>> = { none: [], other: [], claimed: [] }
  // ROUNDS rounds in rotating order: the machine is shared. Medians, so one disturbed round does not decide.
  for (let r = 0; r < ROUNDS; r++)
    for (let k = 0; k < sides.length; k++) {
      const which = sides[(k + r) % sides.length] as (typeof sides)[number]
      samples[which].push(yield* claimMs({ _tag: "limited", which }))
    }
  const median = (xs: ReadonlyArray<number>) => {
    const sorted = [...xs].sort((a, b) => a - b)
    const mid = Math.floor(sorted.length / 2)
    return sorted.length % 2 === 1
      ? (sorted[mid] as number)
      : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
  }
  const of = (side: (typeof sides)[number], key: keyof Sample) => median(samples[side].map((x) => x[key]))
  const label = {
    none: "no endpoint limited",
    other: "another endpoint limited",
    claimed: "claimed endpoint limited (10,000/s)"
  }
  console.log(`bench/webhooks-paused --rates: ${CLAIMS} claims of ${CLAIM_ROWS} rows, median of ${ROUNDS} rounds`)
  console.log("")
  console.log("| side | ms per claim | ratio | PostgreSQL CPU ms per claim | ratio |")
  console.log("| --- | ---: | ---: | ---: | ---: |")
  for (const side of sides)
    console.log(
      `| ${label[side]} | ${of(side, "ms").toFixed(2)} | ${(of(side, "ms") / of("none", "ms")).toFixed(2)}× | ` +
        `${of(side, "cpuMs").toFixed(2)} | ${(of(side, "cpuMs") / of("none", "cpuMs")).toFixed(2)}× |`
    )
})

const program = RATES ? ratesProgram : pausedProgram

Effect.runPromise(program).then(
  () => process.exit(0),
  (e) => {
    console.error(e)
    process.exit(1)
  }
)

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
 */
import { SqlClient } from "@effect/sql"
import { SqlWebhookStore, TestDatabase } from "@frank/adapters"
import { Ids } from "@frank/core"
import { Effect, Layer } from "effect"
import { databaseUrlOrExit } from "./support/local.js"
import { testPartner } from "@frank/core/testing"
import { DeliveryQueue, EndpointStore } from "@frank/core/stores"

const url = databaseUrlOrExit("bench/webhooks-paused")
const BACKLOG = Number(process.env.BACKLOG ?? 20_000)
const CLAIMS = Number(process.env.CLAIMS ?? 50)
const CLAIM_ROWS = 64
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

/** Milliseconds per claim, on a fresh schema, with `paused` deliveries waiting behind a paused endpoint. */
const claimMs = (paused: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* DeliveryQueue
    if (paused > 0) {
      yield* pendingDeliveries(PAUSED, paused, 0)
      yield* (yield* EndpointStore).modifyEndpoint(PAUSED.partnerId, PAUSED.id, (e) => ({
        ...e,
        active: false
      }))
    }
    yield* pendingDeliveries(ACTIVE, CLAIMS * CLAIM_ROWS, paused)
    yield* sql`ANALYZE webhook_deliveries, webhook_endpoints, webhook_events`
    const now = paused + CLAIMS * CLAIM_ROWS + 1
    yield* store.claimDue(now, 60_000, 1, "warm-up")
    const t0 = performance.now()
    let claimed = 1
    for (let i = 0; i < CLAIMS; i++) claimed += (yield* store.claimDue(now, 60_000, CLAIM_ROWS, `bench-${i}`)).length
    const ms = (performance.now() - t0) / CLAIMS
    // Every active delivery was taken, none of the paused endpoint's.
    if (claimed !== CLAIMS * CLAIM_ROWS)
      throw new Error(`bench/webhooks-paused: claimed ${claimed} of ${CLAIMS * CLAIM_ROWS}`)
    return ms
  }).pipe(Effect.provide(SqlWebhookStore.layer.pipe(Layer.provideMerge(TestDatabase.layerPostgres(url)))))

const program = Effect.gen(function* () {
  // Interleaved, twice each, averaged: the machine is shared.
  const base: Array<number> = []
  const withBacklog: Array<number> = []
  for (let r = 0; r < 2; r++) {
    base.push(yield* claimMs(0))
    withBacklog.push(yield* claimMs(BACKLOG))
  }
  const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
  console.log(`bench/webhooks-paused: ${CLAIMS} claims of ${CLAIM_ROWS} rows`)
  console.log("")
  console.log("| paused backlog | ms per claim | ratio to none |")
  console.log("| ---: | ---: | ---: |")
  console.log(`| 0 | ${mean(base).toFixed(2)} | 1.00× |`)
  console.log(`| ${BACKLOG} | ${mean(withBacklog).toFixed(2)} | ${(mean(withBacklog) / mean(base)).toFixed(2)}× |`)
})

Effect.runPromise(program).then(
  () => process.exit(0),
  (e) => {
    console.error(e)
    process.exit(1)
  }
)

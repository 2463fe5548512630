/**
 * bench/webhooks-deleted: what a partner's deleted endpoints cost the claims of its deliveries and
 * the fan-out of its events (migration 0013).
 *
 * A deletion is soft, so a partner whose automation registers and deletes endpoints piles them
 * up. Three sides in one run, each measured on a fresh schema per round with one partner's live
 * endpoint:
 *   - this build, no deleted endpoints (the baseline);
 *   - this build, DELETED deleted endpoints of that partner;
 *   - the same, with migration 0013 undone (0012's claim function, no live-endpoint index).
 * In each, the worker's claim (`DeliveryQueue.claimDue`, 64 rows) is timed over CLAIMS claims of
 * the partner's due deliveries, and the store's fan-out (`appendEvent`, one event to the
 * partner's endpoints, as `Outbox.emit` writes it) over EVENTS events. The sides run in turns,
 * ROUNDS times each in rotating order, and are averaged: the machine is shared.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:webhooks-deleted
 *   (DELETED, default 5000; CLAIMS, default 40; EVENTS, default 500; ROUNDS, default 3)
 */
import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { SqlWebhookStore, TestDatabase } from "@frank/adapters"
import { Effect, Layer } from "effect"
import { databaseUrlOrExit } from "./support/local.js"
import { CLAIM_DUE_0012 } from "./support/pastWorkerFunctions.js"
import { testPartner } from "@frank/core/testing"
import { DeliveryQueue, EventStore } from "@frank/core/stores"

const url = databaseUrlOrExit("bench/webhooks-deleted")
const DELETED = Number(process.env.DELETED ?? 5_000)
const CLAIMS = Number(process.env.CLAIMS ?? 40)
const EVENTS = Number(process.env.EVENTS ?? 500)
const ROUNDS = Number(process.env.ROUNDS ?? 3)
const CLAIM_ROWS = 64
const PARTNER = testPartner("p_deleting")
/**
 * The live endpoint's id sorts amid the deleted ones' (random, as v4 ids are): a lookup by partner
 * alone walks the primary key in id order and stops at the first match, so an id sorting first
 * would hide the cost and one sorting last would show its worst.
 */
const LIVE = "80000000-0000-4000-8000-000000000000"
/** Other partners, one endpoint each: the table's statistics are those of a shared host. */
const OTHER_PARTNERS = 1_000

const UNDO_0013 = [
  "DROP FUNCTION webhook_claim_due(bigint, bigint, integer, text)",
  CLAIM_DUE_0012,
  "DROP INDEX webhook_endpoints_live"
]

interface Side {
  readonly name: string
  readonly deleted: number
  readonly ddl: ReadonlyArray<string>
  readonly claimMs: Array<number>
  readonly fanOutMs: Array<number>
}

/** One side's measurement on a fresh schema: ms per claim and per fan-out. */
const measure = (side: Side) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* DeliveryQueue
    const events = yield* EventStore
    for (const statement of side.ddl) yield* sql.unsafe(statement)
    // The side runs the claim it names: 0013's looks endpoints up LATERAL, 0012's did not.
    const [fn] = yield* sql<{
      lateral: boolean
    }>`SELECT prosrc LIKE '%LATERAL%' AS lateral FROM pg_proc WHERE proname = 'webhook_claim_due' AND pronamespace = current_schema()::regnamespace`
    if (fn?.lateral !== (side.ddl.length === 0))
      throw new Error(`bench/webhooks-deleted: ${side.name} runs the wrong claim function`)
    yield* sql`INSERT INTO webhook_endpoints (partner_id, id, url, event_types, active, secret, created_at, updated_at)
      SELECT 'p_' || k, md5('ep' || k)::uuid, 'https://receiver.example/hook', NULL, true, 'whsec_bench', 0, 0 FROM generate_series(1, ${OTHER_PARTNERS}) k`
    yield* sql`INSERT INTO webhook_endpoints (partner_id, id, url, event_types, active, secret, created_at, updated_at)
      VALUES (${PARTNER}, ${LIVE}::uuid, 'https://receiver.example/hook', NULL, true, 'whsec_bench', 0, 0)`
    yield* sql`INSERT INTO webhook_endpoints (partner_id, id, url, event_types, active, secret, created_at, updated_at, deleted_at)
      SELECT ${PARTNER}, md5('deleted' || k)::uuid, 'https://receiver.example/hook', NULL, false, '', 0, 0, 1 FROM generate_series(1, ${side.deleted}) k`
    const n = (CLAIMS + 1) * CLAIM_ROWS
    yield* sql`INSERT INTO webhook_events (partner_id, id, type, occurred_at, payload)
      SELECT ${PARTNER}, md5('e' || g)::uuid, 'webhook.test', g, '{}' FROM generate_series(1, ${n}) g`
    yield* sql`INSERT INTO webhook_deliveries (partner_id, id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
      SELECT ${PARTNER}, gen_random_uuid(), ${LIVE}::uuid, md5('e' || g)::uuid, 'webhook.test', 'pending', 0, g, g, g FROM generate_series(1, ${n}) g`
    yield* sql`ANALYZE webhook_deliveries, webhook_endpoints, webhook_events`
    const now = n + 1
    // Warm-up: plans cached, pages read.
    yield* store.claimDue(now, 60_000, CLAIM_ROWS, "warm-up")
    let t0 = performance.now()
    let claimed = 0
    for (let i = 0; i < CLAIMS; i++) claimed += (yield* store.claimDue(now, 60_000, CLAIM_ROWS, `bench-${i}`)).length
    side.claimMs.push((performance.now() - t0) / CLAIMS)
    if (claimed !== CLAIMS * CLAIM_ROWS)
      throw new Error(`bench/webhooks-deleted: ${side.name} claimed ${claimed} of ${CLAIMS * CLAIM_ROWS}`)
    const event = (i: number) => ({
      partnerId: PARTNER,
      id: randomUUID(),
      type: "billing.settled" as const,
      occurredAt: now + i,
      payload: "{}"
    })
    yield* events.appendEvent(event(-1), { _tag: "Subscribers" }, now)
    t0 = performance.now()
    let fannedOut = 0
    for (let i = 0; i < EVENTS; i++) fannedOut += yield* events.appendEvent(event(i), { _tag: "Subscribers" }, now)
    side.fanOutMs.push((performance.now() - t0) / EVENTS)
    // Each event reached the live endpoint and nothing else.
    if (fannedOut !== EVENTS)
      throw new Error(`bench/webhooks-deleted: ${side.name} fanned ${EVENTS} events out to ${fannedOut} deliveries`)
  }).pipe(
    Effect.provide(
      SqlWebhookStore.layer.pipe(Layer.provideMerge(TestDatabase.layerPostgres(url, { maxConnections: 1 })))
    )
  )

const program = Effect.gen(function* () {
  const sides: ReadonlyArray<Side> = [
    { name: "this build, none deleted (baseline)", deleted: 0, ddl: [], claimMs: [], fanOutMs: [] },
    { name: "this build", deleted: DELETED, ddl: [], claimMs: [], fanOutMs: [] },
    { name: "before migration 0013", deleted: DELETED, ddl: UNDO_0013, claimMs: [], fanOutMs: [] }
  ]
  // In turns, in rotating order (no side always first, or last, in a round).
  for (let r = 0; r < ROUNDS; r++)
    for (let k = 0; k < sides.length; k++) yield* measure(sides[(r + k) % sides.length] as Side)
  const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
  const [base] = sides
  if (base === undefined) return
  console.log(
    `bench/webhooks-deleted: ${CLAIMS} claims of ${CLAIM_ROWS} rows and ${EVENTS} events per side, ${OTHER_PARTNERS} other partners`
  )
  console.log("")
  console.log("| schema | the partner's deleted endpoints | ms per claim | ratio | ms per event's fan-out | ratio |")
  console.log("| --- | ---: | ---: | ---: | ---: | ---: |")
  for (const side of sides)
    console.log(
      `| ${side.name} | ${side.deleted} | ${mean(side.claimMs).toFixed(2)} | ${(mean(side.claimMs) / mean(base.claimMs)).toFixed(2)}× | ${mean(side.fanOutMs).toFixed(3)} | ${(mean(side.fanOutMs) / mean(base.fanOutMs)).toFixed(2)}× |`
    )
})

Effect.runPromise(program).then(
  () => process.exit(0),
  (e) => {
    console.error(e)
    process.exit(1)
  }
)

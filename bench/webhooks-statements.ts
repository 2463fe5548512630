/**
 * bench/webhooks-statements: Postgres CPU per delivery of the delivery worker's two statements —
 * the claim and the outcome write — on this build's schema, against the schema before migration
 * 0012 (the claim reaching deliveries through their endpoint's history, the outcome write free to
 * hash a full scan of the delivery table), against 0014's claim (before migration 0015 put it
 * on the claimable view) and against 0012's outcome write (before migration 0019 kept endpoint
 * health in it), in one run. Since issue 31 the cycle also marks the claimed batch sent
 * (`markSent`) between the two, as the worker does; the older sides and "this build's claim, no
 * sent mark" leave the mark out, so the mark's cost is the difference to "this build", and the
 * claim as 0017 defined it (before 0020 cleared a sent column) shows whether the claim moved
 * (PAST_SIDES=1 adds 0014's claim and 0012's outcome write back).
 *
 * Each side is a fresh schema with ENDPOINTS endpoints (one partner each), DELIVERIES due
 * deliveries spread over them and a one-connection pool, so a single backend runs its statements:
 * the store's `claimDue` (BATCH rows) and `finishAttempts` (all answered 200), back to back. The
 * sides take turns cycle by cycle, in rotating order, so the machine's drift — large on these
 * shared 2-core machines — hits both alike; the backends' CPU (/proc, Linux) gives µs per
 * delivery. End-to-end rates are bench/webhooks'; this isolates the database's share, which its
 * rounds cannot resolve. The shape matters: with one endpoint the claim's old plan was harmless,
 * and below some 20,000–40,000 deliveries the outcome write's old plan read the whole table.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:webhooks-statements
 *   (DELIVERIES, default 12000; ENDPOINTS, default 100; BATCH, default 30 — about what a claim
 *   takes at 64 in flight; ANSWER_STEP_MS, default 0, see below)
 */
import { readFileSync } from "node:fs"
import { SqlClient } from "@effect/sql"
import { SqlWebhookStore, TestDatabase } from "@frank/adapters"
import { Webhooks } from "@frank/core"
import { Context, Effect, Either, Layer } from "effect"
import { databaseUrlOrExit } from "./support/local.js"
import {
  CLAIM_DUE_0011,
  CLAIM_DUE_0013,
  FINISH_ATTEMPTS_0008,
  FINISH_ATTEMPTS_0012
} from "./support/pastWorkerFunctions.js"
import { DeliveryQueue } from "@frank/core/stores"

const url = databaseUrlOrExit("bench/webhooks-statements")
const DELIVERIES = Number(process.env.DELIVERIES ?? 12_000)
const BATCH = Number(process.env.BATCH ?? 30)
const ENDPOINTS = Number(process.env.ENDPOINTS ?? 100)
/**
 * How far apart the cycles' answers are. 0 (default): all at one instant, so after its first
 * success an endpoint's health row is left alone (migration 0019 writes it once a second at most);
 * 1000 or more: every outcome write also writes the health row of each endpoint in its batch.
 */
const ANSWER_STEP_MS = Number(process.env.ANSWER_STEP_MS ?? 0)
const WARMUP_CYCLES = 20
const NOW = 1_000_000_000

/** Migration 0015 undone: the claim as 0013 defined it (and 0014 kept), without the claimable view. */
const UNDO_0015 = ["DROP FUNCTION webhook_claim_due(bigint, bigint, integer, text)", CLAIM_DUE_0013]

/** Migration 0020's claim undone: 0017's text, read from its migration (no `sent_at` to clear). */
const UNDO_0020 = [
  "DROP FUNCTION webhook_claim_due(bigint, bigint, integer, text)",
  ((text: string) => text.slice(text.indexOf("CREATE FUNCTION webhook_claim_due"), text.indexOf("$fn$;") + 5))(
    readFileSync(new URL("../packages/adapters/migrations/0017_webhook_signature_schemes.sql", import.meta.url), "utf8")
  )
]

/** PAST_SIDES=1 also runs 0014's claim and 0012's outcome write (the figures of migrations 0015 and 0019). */
const PAST_SIDES = process.env.PAST_SIDES === "1"

/** Migration 0019's outcome write undone: 0012's, which kept no endpoint health. */
const UNDO_0019 = ["DROP FUNCTION webhook_finish_attempts(json, bigint)", FINISH_ATTEMPTS_0012]

/** Migration 0012 undone: the claim as migration 0011 defined it, the outcome write as 0008 did. */
const UNDO_0012 = [
  "DROP FUNCTION webhook_claim_due(bigint, bigint, integer, text)",
  CLAIM_DUE_0011,
  "DROP FUNCTION webhook_finish_attempts(json, bigint)",
  FINISH_ATTEMPTS_0008
]

const cpuUs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? []
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

interface Side {
  readonly name: string
  /** Whether its cycle marks the claimed batch sent between claim and outcome (issue 31). */
  readonly mark: boolean
  readonly context: Context.Context<DeliveryQueue | SqlClient.SqlClient>
  pid: number
  delivered: number
  cpuUs: number
  wallMs: number
}

/** A fresh schema on a one-connection pool, `ddl` applied, DELIVERIES + warm-up deliveries due. */
const makeSide = (name: string, ddl: ReadonlyArray<string>, mark = true) =>
  Effect.gen(function* () {
    const context = yield* Layer.build(
      SqlWebhookStore.layerWith({ notify: "none" }).pipe(
        Layer.provideMerge(TestDatabase.layerPostgres(url, { maxConnections: 1 }))
      )
    )
    const sql = Context.get(context, SqlClient.SqlClient)
    for (const statement of ddl) yield* sql.unsafe(statement)
    const n = DELIVERIES + WARMUP_CYCLES * BATCH
    yield* sql`INSERT INTO webhook_endpoints (partner_id, id, url, event_types, active, secret, created_at, updated_at)
      SELECT 'p_' || k, md5('ep' || k)::uuid, 'https://receiver.example/hook', NULL, true, 'whsec_bench', 0, 0 FROM generate_series(1, ${ENDPOINTS}) k`
    // A payload of an ordinary event's size: the claim returns it with every row.
    yield* sql`INSERT INTO webhook_events (partner_id, id, type, occurred_at, payload)
      SELECT 'p_' || (g % ${ENDPOINTS} + 1), md5('e' || g)::uuid, 'webhook.test', g, repeat('x', 240) FROM generate_series(1, ${n}) g`
    yield* sql`INSERT INTO webhook_deliveries (partner_id, id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
      SELECT 'p_' || (g % ${ENDPOINTS} + 1), md5('d' || g)::uuid, md5('ep' || (g % ${ENDPOINTS} + 1))::uuid, md5('e' || g)::uuid, 'webhook.test', 'pending', 0, g, g, g
      FROM generate_series(1, ${n}) g`
    yield* sql`ANALYZE webhook_deliveries, webhook_events, webhook_endpoints`
    const [row] = yield* sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`
    return { name, mark, context, pid: row?.pid ?? 0, delivered: 0, cpuUs: 0, wallMs: 0 } satisfies Side
  })

/** One claim of BATCH and the write of their outcomes; measured unless warming up. */
const cycle = (side: Side, i: number, measured: boolean) =>
  Effect.gen(function* () {
    const store = Context.get(side.context, DeliveryQueue)
    // The pool may have replaced its connection while the other sides ran (idle timeout).
    const [backend] = yield* Context.get(side.context, SqlClient.SqlClient)<{
      pid: number
    }>`SELECT pg_backend_pid() AS pid`
    side.pid = backend?.pid ?? side.pid
    const cpu0 = cpuUs(side.pid)
    const t0 = performance.now()
    const claims = yield* store.claimDue(NOW, 60_000, BATCH, `${side.name}-${i}`)
    if (side.mark) yield* store.markSent(claims, NOW + i * ANSWER_STEP_MS)
    const finished = claims.map(
      (claim): Webhooks.FinishedAttempt =>
        Either.getOrThrow(
          Webhooks.finishedAttempt(
            claim,
            { _tag: "Answered", status: 200 },
            NOW + i * ANSWER_STEP_MS,
            NOW + i * ANSWER_STEP_MS + 3
          )
        )
    )
    const recorded = yield* store.finishAttempts(finished, NOW + i * ANSWER_STEP_MS + 3)
    if (claims.length !== BATCH || recorded.length !== BATCH)
      throw new Error(`bench/webhooks-statements: ${side.name} claimed ${claims.length}, recorded ${recorded.length}`)
    if (!measured) return
    side.wallMs += performance.now() - t0
    side.cpuUs += cpuUs(side.pid) - cpu0
    side.delivered += BATCH
  })

const program = Effect.gen(function* () {
  const sides = [
    yield* makeSide("before 0012 (baseline)", UNDO_0012, false),
    ...(PAST_SIDES
      ? [
          yield* makeSide("0014's claim (before 0015)", UNDO_0015, false),
          yield* makeSide("0012's outcome write (before 0019's health)", UNDO_0019, false)
        ]
      : []),
    yield* makeSide("0017's claim, no sent mark (before 0020)", UNDO_0020, false),
    yield* makeSide("this build's claim, no sent mark", [], false),
    yield* makeSide("this build", [])
  ]
  for (let i = 0; i < WARMUP_CYCLES; i++) for (const side of sides) yield* cycle(side, i, false)
  const cycles = Math.floor(DELIVERIES / BATCH)
  for (let i = 0; i < cycles; i++)
    // Rotating order: no side always runs first.
    for (let k = 0; k < sides.length; k++) yield* cycle(sides[(i + k) % sides.length] as Side, WARMUP_CYCLES + i, true)
  const perDelivery = (s: Side) => ({ cpuUs: s.cpuUs / s.delivered, wallUs: (1000 * s.wallMs) / s.delivered })
  const base = perDelivery(sides[0] as Side)
  console.log(
    `bench/webhooks-statements: ${DELIVERIES} deliveries over ${ENDPOINTS} endpoints per schema, ${cycles} interleaved claim + outcome cycles of ${BATCH} per side`
  )
  console.log("")
  console.log("| schema | Postgres CPU µs per delivery | ratio | wall µs per delivery (both statements) | ratio |")
  console.log("| --- | ---: | ---: | ---: | ---: |")
  for (const side of sides) {
    const x = perDelivery(side)
    console.log(
      `| ${side.name} | ${x.cpuUs.toFixed(1)} | ${(x.cpuUs / base.cpuUs).toFixed(2)}× | ${x.wallUs.toFixed(1)} | ${(x.wallUs / base.wallUs).toFixed(2)}× |`
    )
  }
})

Effect.runPromise(Effect.scoped(program).pipe(Effect.withTracerEnabled(false))).then(
  () => process.exit(0),
  (e) => {
    console.error(e)
    process.exit(1)
  }
)

/**
 * bench/holds — the task hold expiry sweep (Tasks.TaskExpiry on the SQL stores, PostgreSQL):
 * `BENCH_HOLDS` (default 100,000) due holds of tasks spread over 1,000 partners are expired by one
 * sweep, each task in its own transaction (TASK_EXPIRED, the refund row through the ledger's
 * refund path, task.failed, billing.refunded and task.refunded written to the outbox). Reports
 * rows/s (tasks expired per second). Baseline, same run: the same sweep one task at a time
 * (concurrency 1) over a tenth of the holds; the ratio is the default sweep's rows/s over it.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --conditions=@frank/source --import tsx bench/holds.ts
 *
 * The holds are seeded with one INSERT … SELECT per table (tasks, holds, accounts), already due;
 * each run works in a fresh schema of its own, dropped at the end.
 */
import { SqlClient } from "@effect/sql"
import { SqlLedgerStore, SqlTaskStore, SqlWebhookStore, TestDatabase } from "@frank/adapters"
import { Ids, Ledger, Pricing, Tariffs, Tasks, Webhooks, Events } from "@frank/core"
import { ManualGenerationProvider, MemoryStoredFileLookup } from "@frank/core/testing"
import { Effect, Layer, TestClock, TestContext } from "effect"

const url = process.env.DATABASE_URL ?? ""
if (url.length === 0) {
  console.log("bench/holds: DATABASE_URL is not set; it needs a PostgreSQL server. Nothing measured.")
  process.exit(0)
}
const HOLDS = Number(process.env.BENCH_HOLDS ?? 100_000)
const PARTNERS = 1_000
const T0 = Date.UTC(2026, 10, 1)
const RESERVED = 1_000
/** The host's sweep (core's defaults): batches of 500, 4 tasks at a time. */
const DEFAULT_EXPIRY = { sweepIntervalMs: 60_000, batchSize: 500, concurrency: 4 }
type ExpiryConfig = typeof DEFAULT_EXPIRY

/** `count` due tasks with open holds, their accounts holding exactly what they reserve. */
const seed = (count: number, prefix: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const partner = sql.literal(`'${prefix}-' || (g % ${PARTNERS})`)
    yield* sql`INSERT INTO tasks (partner_id, id, status, model_id, family, operation, mode, request, inputs,
        reserved_minor, created_at, expires_at)
      SELECT ${partner}, gen_random_uuid(), 'running', 'gpt-image-1', 'image', 'text-to-image', 'standard',
        '{"modelId":"gpt-image-1"}', '[]', ${RESERVED}, ${T0}, ${T0 + 1000}::bigint + g FROM generate_series(1, ${count}) AS g`
    yield* sql`INSERT INTO ledger_holds (partner_id, task_id, status, reserved_minor, reservation_entry_id, created_at, expires_at)
      SELECT partner_id, id::text, 'open', reserved_minor, gen_random_uuid(), created_at, expires_at
      FROM tasks WHERE partner_id LIKE ${`${prefix}-%`}`
    yield* sql`INSERT INTO ledger_accounts (partner_id, total_minor, reserved_minor)
      SELECT partner_id, sum(reserved_minor), sum(reserved_minor) FROM ledger_holds
      WHERE partner_id LIKE ${`${prefix}-%`} GROUP BY partner_id`
    yield* sql`ANALYZE`
  })

const engine = (config: ExpiryConfig) =>
  Tasks.TaskExpiry.layer(config).pipe(
    Layer.provideMerge(Tasks.Tasks.layer),
    Layer.provideMerge(
      Layer.mergeAll(
        Ledger.Ledger.layer,
        Tariffs.Tariffs.layer(Tariffs.defaultTariffConfig),
        MemoryStoredFileLookup,
        ManualGenerationProvider,
        Tasks.TaskSettings.layer({ publicBaseUrl: "https://frank.test" }),
        Pricing.Pricing.layerFromCatalog(Pricing.sampleCatalog),
        Webhooks.WebhookSettings.layer({ allowPrivateNetwork: true })
      )
    ),
    Layer.provideMerge(Events.Outbox.layer),
    Layer.provideMerge(Layer.mergeAll(SqlLedgerStore.layer, SqlWebhookStore.layer, SqlTaskStore.layer)),
    Layer.provideMerge(Layer.mergeAll(Ids.Ids.layer, Events.DeliveryWakeup.layer))
  )

/** Seeds `count` due holds, sweeps them with `config`; answers rows/s. */
const measure = (count: number, prefix: string, config: ExpiryConfig) =>
  Effect.gen(function* () {
    yield* seed(count, prefix)
    yield* TestClock.setTime(T0 + 1000 + count + 1)
    const expiry = yield* Tasks.TaskExpiry
    const started = performance.now()
    const done = yield* expiry.sweep
    const seconds = (performance.now() - started) / 1000
    if (done.expired < count) throw new Error(`expired ${done.expired} of ${count}`)
    const sql = yield* SqlClient.SqlClient
    const [left] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM ledger_holds WHERE status = 'open'`
    if ((left?.n ?? -1) !== 0) throw new Error(`${left?.n} holds left open`)
    return { rows: done.expired, seconds, batches: done.batches, perSecond: done.expired / seconds }
  }).pipe(Effect.provide(engine(config)))

const program = Effect.gen(function* () {
  const baseline = yield* measure(Math.max(1, Math.floor(HOLDS / 10)), "base", {
    ...DEFAULT_EXPIRY,
    concurrency: 1
  })
  const sweep = yield* measure(HOLDS, "sweep", DEFAULT_EXPIRY)
  const show = (name: string, r: typeof sweep) =>
    console.log(
      `${name}: ${r.rows} holds expired in ${r.seconds.toFixed(1)} s (${r.batches} batches): ${Math.round(r.perSecond)} rows/s`
    )
  show("baseline (concurrency 1)", baseline)
  show(`sweep (default: batch ${DEFAULT_EXPIRY.batchSize}, concurrency ${DEFAULT_EXPIRY.concurrency})`, sweep)
  console.log(`ratio sweep/baseline: ${(sweep.perSecond / baseline.perSecond).toFixed(2)}`)
}).pipe(Effect.provide(TestDatabase.layerPostgres(url, { maxConnections: 8 })), Effect.provide(TestContext.TestContext))

await Effect.runPromise(Effect.scoped(program).pipe(Effect.orDie) as Effect.Effect<void>)

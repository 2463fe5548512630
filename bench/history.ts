/**
 * bench/history — the ledger's reads at two history sizes (issue 36): one partner with LARGE
 * entries (1,000,000 on PostgreSQL) and one with SMALL (1,000), each read measured on both and
 * the ratio large/small printed. Reads go through the `Ledger` and `Tariffs` services on
 * `SqlLedgerStore`, as the API's handlers call them: transactions page 1 and page 9,000 (the
 * small partner has 50 pages: its last), filtered by type and by a 7-day date range, daily usage
 * over 30 and 365 days, the CSV export (10,000 rows; on both sizes also its first 1,000 rows),
 * balance and tariff. Then the same on PGlite with 100,000 entries (page 4,000 there).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:history
 *
 * The history is bulk-loaded with generate_series straight into the tables the engine keeps —
 * entries with their account_seq/type_seq, the account row's counts, ledger_usage_days — as
 * movements would have written them (a task's reservation, charge and release; a top-up every
 * 100 rows), spread evenly over 400 days up to now. Each read runs WARMUP times, then RUNS times;
 * the median and p95 in ms are printed. Targets (PostgreSQL): every ratio ≤ 2, every read at 1 M
 * ≤ 20 ms except the 10,000-row CSV ≤ 100 ms.
 *
 * LARGE (1000000), PGLITE_LARGE (100000) and RUNS (21) override the sizes; PGLITE=0 skips PGlite.
 */
import { SqlClient } from "@effect/sql"
import { TestDatabase, SqlLedgerStore } from "@frank/adapters"
import { Ids, Ledger, Tariffs } from "@frank/core"
import { OutboxOnMemory, testPartner } from "@frank/core/testing"
import { Clock, Effect, Layer, Stream } from "effect"

const url = process.env.DATABASE_URL ?? ""
const LARGE = Number(process.env.LARGE ?? 1_000_000)
const PGLITE_LARGE = Number(process.env.PGLITE_LARGE ?? 100_000)
const SMALL = 1_000
const RUNS = Number(process.env.RUNS ?? 21)
const WARMUP = 3
const DAY = 86_400_000
const PAGE = 20

/**
 * One partner's history of `n` entries written as the engine writes them. Row i (1-based) is,
 * by i mod 3, a reservation, its charge or its release (a task per three rows), except every
 * 100th row, a top-up; times rise evenly over 400 days up to `now`.
 */
const loadHistory = (partnerId: string, n: number, now: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const step = Math.max(1, Math.floor((400 * DAY) / n))
    const start = now - n * step
    yield* sql`
      INSERT INTO ledger_entries (partner_id, id, type, kind, amount_minor, unit_price_micros, task_id, attribution,
        label, description, occurred_at, account_seq, type_seq)
      SELECT ${partnerId}, gen_random_uuid(), g.type, g.kind, g.amount, g.price, g.task, g.attribution, g.label,
        g.description, ${start}::bigint + g.i * ${step}::bigint, g.i, row_number() OVER (PARTITION BY g.type ORDER BY g.i)
      FROM (
        SELECT i,
          CASE WHEN i % 100 = 0 THEN 'topup' WHEN i % 3 = 1 THEN 'reservation' WHEN i % 3 = 2 THEN 'confirm' ELSE 'refund' END AS type,
          CASE WHEN i % 100 = 0 THEN 'topup' WHEN i % 3 = 1 THEN 'task_hold' WHEN i % 3 = 2 THEN 'task_charge' ELSE 'task_release' END AS kind,
          CASE WHEN i % 100 = 0 THEN 500000 WHEN i % 3 = 1 THEN 1000 WHEN i % 3 = 2 THEN 700 ELSE 300 END AS amount,
          CASE WHEN i % 100 = 0 THEN NULL ELSE 125000 END AS price,
          CASE WHEN i % 100 = 0 THEN NULL ELSE 'task_' || ((i + 2) / 3) END AS task,
          CASE WHEN i % 100 = 0 THEN (ARRAY['company', 'personal'])[1 + (i / 100) % 2] END AS attribution,
          CASE WHEN i % 100 = 0 THEN 'Пополнение баланса' ELSE 'Списание по задаче' END AS label,
          'Задача task_' || ((i + 2) / 3) AS description
        FROM generate_series(1, ${n}::bigint) AS i
      ) g`
    yield* sql`
      INSERT INTO ledger_accounts (partner_id, total_minor, used_minor, entry_count, topup_count, reservation_count,
        confirm_count, refund_count, last_entry_at)
      SELECT ${partnerId}, sum(amount_minor) FILTER (WHERE type = 'topup') + 1000000000,
        coalesce(sum(amount_minor) FILTER (WHERE type = 'confirm'), 0), count(*),
        count(*) FILTER (WHERE type = 'topup'), count(*) FILTER (WHERE type = 'reservation'),
        count(*) FILTER (WHERE type = 'confirm'), count(*) FILTER (WHERE type = 'refund'), max(occurred_at)
      FROM ledger_entries WHERE partner_id = ${partnerId}`
    yield* sql`
      INSERT INTO ledger_usage_days (partner_id, day_start_ms, spent_minor)
      SELECT ${partnerId}, (floor(occurred_at / 86400000.0) * 86400000)::bigint,
        sum(CASE WHEN type = 'confirm' THEN amount_minor ELSE -amount_minor END)
      FROM ledger_entries WHERE partner_id = ${partnerId} AND (type = 'confirm' OR (type = 'refund' AND task_id IS NULL))
      GROUP BY 2`
    yield* sql`ANALYZE ledger_entries`
    yield* sql`ANALYZE ledger_accounts`
    yield* sql`ANALYZE ledger_usage_days`
  })

interface Read {
  readonly name: string
  readonly run: (
    partnerId: Ids.PartnerId,
    size: number
  ) => Effect.Effect<unknown, unknown, Ledger.Ledger | Tariffs.Tariffs>
}

const csv = (maxRows: number) => (p: Ids.PartnerId) =>
  Effect.flatMap(Ledger.Ledger, (ledger) =>
    Stream.runFold(
      Ledger.csvExportStream(ledger.streamEntries(p, {}, maxRows), ledger.countEntries(p, {}), maxRows),
      0,
      (n, chunk) => n + chunk.length
    )
  )

const usage = (days: number) => (p: Ids.PartnerId) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger.Ledger
    const untilMs = Ledger.dayStart(yield* Clock.currentTimeMillis) + DAY
    const fromMs = untilMs - days * DAY
    return Ledger.dailyUsageView(yield* ledger.usageByDay(p, fromMs, untilMs), fromMs, untilMs)
  })

const list =
  (filter: (now: number) => Ledger.EntryFilter, page: (size: number) => number) => (p: Ids.PartnerId, size: number) =>
    Effect.gen(function* () {
      const ledger = yield* Ledger.Ledger
      const now = yield* Clock.currentTimeMillis
      const result = yield* ledger.listEntries(p, filter(now), (page(size) - 1) * PAGE, PAGE)
      if (result.items.length === 0) return yield* Effect.dieMessage("bench/history: an empty page measured")
      return result
    })

/** The deepest page asked for: 9,000, or the last page of a shorter history. */
const deepPage = (deep: number) => (size: number) => Math.min(deep, Math.ceil(size / PAGE))

const reads = (deep: number): ReadonlyArray<Read> => [
  {
    name: "transactions page 1",
    run: list(
      () => ({}),
      () => 1
    )
  },
  { name: `transactions page ${deep.toLocaleString("en")}*`, run: list(() => ({}), deepPage(deep)) },
  {
    name: "type=topup page 1",
    run: list(
      () => ({ type: "topup" }),
      () => 1
    )
  },
  {
    name: "type=confirm page 1",
    run: list(
      () => ({ type: "confirm" }),
      () => 1
    )
  },
  {
    name: "date range 7 days, page 1",
    run: list(
      (now) => ({ fromMs: now - 37 * DAY, untilMs: now - 30 * DAY }),
      () => 1
    )
  },
  { name: "usage 30 days", run: usage(30) },
  { name: "usage 365 days", run: usage(365) },
  { name: "CSV first 1,000 rows", run: csv(1_000) },
  { name: "CSV 10,000 rows", run: csv(10_000) },
  { name: "balance", run: (p) => Effect.flatMap(Ledger.Ledger, (l) => l.balance(p)) },
  { name: "tariff", run: (p) => Effect.flatMap(Tariffs.Tariffs, (t) => t.view(p)) }
]

const percentile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN

const measure = <E, R>(effect: Effect.Effect<unknown, E, R>) =>
  Effect.gen(function* () {
    for (let i = 0; i < WARMUP; i++) yield* effect
    const times: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now()
      yield* effect
      times.push(performance.now() - t)
    }
    times.sort((a, b) => a - b)
    return { p50: percentile(times, 0.5), p95: percentile(times, 0.95) }
  })

const fmt = (ms: number) => ms.toFixed(ms < 10 ? 2 : 1).padStart(7)

const runEngine = (engine: string, large: number, deep: number, database: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const big = testPartner(`p_history_${large}`)
    const small = testPartner(`p_history_${SMALL}`)
    const t = performance.now()
    yield* loadHistory(big, large, now)
    yield* loadHistory(small, SMALL, now)
    console.log(
      `\n${engine}: loaded ${large.toLocaleString("en")} + ${SMALL.toLocaleString("en")} entries in ${((performance.now() - t) / 1000).toFixed(1)} s`
    )
    console.log(
      `${"read".padEnd(30)} ${"large p50".padStart(9)} ${"p95".padStart(7)} ${"small p50".padStart(9)} ${"p95".padStart(7)}  ratio`
    )
    for (const read of reads(deep)) {
      const l = yield* measure(read.run(big, large))
      const s = yield* measure(read.run(small, SMALL))
      console.log(
        `${read.name.padEnd(30)} ${fmt(l.p50).padStart(9)} ${fmt(l.p95)} ${fmt(s.p50).padStart(9)} ${fmt(s.p95)}  ${(l.p50 / s.p50).toFixed(2)}`
      )
    }
    console.log(`* the small partner's last page (${Math.ceil(SMALL / PAGE)}); ms per read, median and p95 of ${RUNS}`)
  }).pipe(
    Effect.provide(
      Layer.mergeAll(Ledger.Ledger.layer, Tariffs.Tariffs.layer(Tariffs.defaultTariffConfig)).pipe(
        Layer.provideMerge(SqlLedgerStore.layer),
        Layer.provideMerge(OutboxOnMemory),
        Layer.provideMerge(Ids.Ids.layer),
        Layer.provideMerge(database)
      )
    )
  )

const main = Effect.gen(function* () {
  console.log(`bench/history — node ${process.version}, ${new Date().toISOString()}`)
  if (url.length > 0) yield* runEngine("PostgreSQL", LARGE, 9_000, TestDatabase.layerPostgres(url))
  else console.log("DATABASE_URL is not set: PostgreSQL skipped.")
  if (process.env.PGLITE !== "0")
    yield* runEngine(
      "PGlite",
      PGLITE_LARGE,
      Math.min(9_000, Math.floor(PGLITE_LARGE / PAGE / 2)),
      TestDatabase.layerPglite()
    )
})

Effect.runPromise(Effect.scoped(main)).catch((e) => {
  console.error(e)
  process.exit(1)
})

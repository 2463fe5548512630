/**
 * Migration 0027 on a database that already has a history, and the numbering under concurrency.
 * A ledger written by the migrations before 0027 (25,003 rows for one partner, times shuffled
 * against insertion order and tied, so batches of 10,000 meet ties and out-of-order rows) is
 * migrated; every row then has its place in (occurred_at, seq) order in the partner's ledger and
 * in its type, the account's counts and daily usage equal what the rows say, and the store's
 * pages equal the OFFSET query they replace. Concurrent movements on one partner leave the
 * numbering without gaps. PGlite always; PostgreSQL when DATABASE_URL is set.
 */
import { Migrator, SqlClient } from "@effect/sql"
import { Ids, Ledger } from "@frank/core"
import { OutboxOnMemory, testPartner, testTask } from "@frank/core/testing"
import { expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import {
  type DatabaseSchema,
  Migrations,
  PgliteDatabase,
  PostgresDatabase,
  SqlLedgerStore,
  TestDatabase
} from "../src/index.js"
import { runScript } from "./support/scratchDatabase.js"
import { LedgerStore } from "@frank/core/stores"

const url = process.env.DATABASE_URL
const BEFORE = 26
const BIG = 25_003
const T0 = Date.UTC(2025, 0, 1)
const MINUTE = 60_000

const migrateUpTo = (latest: number) =>
  Migrator.make({})({
    loader: Effect.map(Migrations.loader, (all) => all.filter(([id]) => id <= latest)),
    table: "effect_sql_migrations"
  })

/** The history, written the way the builds before 0027 wrote rows (no numbering). */
const writeHistory = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.zipRight(
    sql`INSERT INTO ledger_accounts (partner_id) VALUES ('p_big'), ('p_small'), ('p_empty')`,
    sql`
  WITH kinds (k, type, kind, task_id) AS (VALUES
    (0, 'topup', 'topup', NULL), (1, 'reservation', 'task_hold', 't'), (2, 'confirm', 'task_charge', 't'),
    (3, 'refund', 'task_release', 't'), (4, 'refund', 'spend_refund', NULL), (5, 'debit', 'legacy_debit', NULL),
    (6, 'bonus_reversal', 'bonus_reversal', NULL))
  INSERT INTO ledger_entries (partner_id, id, type, kind, amount_minor, task_id, attribution, label, description, occurred_at)
  SELECT p.partner_id, gen_random_uuid(), k.type, k.kind,
    CASE WHEN k.type = 'confirm' AND i % 50 = 2 THEN 0 ELSE 1 + i % 97 END, k.task_id,
    CASE WHEN k.type = 'topup' THEN (ARRAY['company', 'personal'])[1 + i % 2] END, 'l', 'd',
    ${T0}::bigint + ((i * 7919) % 2500) * 10 * ${MINUTE}::bigint
  FROM (VALUES ('p_big', ${BIG}), ('p_small', 9)) AS p (partner_id, n)
  CROSS JOIN LATERAL generate_series(1, p.n) AS i
  JOIN kinds k ON k.k = i % 7`
  )
)

/** Rows whose numbers differ from their place in (occurred_at, seq) order; must be none. */
const misnumbered = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM ledger_entries e JOIN (
      SELECT partner_id, id,
        row_number() OVER (PARTITION BY partner_id ORDER BY occurred_at, seq) AS a,
        row_number() OVER (PARTITION BY partner_id, type ORDER BY occurred_at, seq) AS t
      FROM ledger_entries) r USING (partner_id, id)
    WHERE e.account_seq <> r.a OR e.type_seq <> r.t`
)

/** Account counters that differ from the rows; must be none. */
const miscounted = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ partnerId: string }>`SELECT a.partner_id FROM ledger_accounts a LEFT JOIN (
      SELECT partner_id, count(*) AS n, max(occurred_at) AS last,
        count(*) FILTER (WHERE type = 'topup') AS topup, count(*) FILTER (WHERE type = 'reservation') AS reservation,
        count(*) FILTER (WHERE type = 'confirm') AS confirm, count(*) FILTER (WHERE type = 'refund') AS refund,
        count(*) FILTER (WHERE type = 'debit') AS debit, count(*) FILTER (WHERE type = 'bonus_reversal') AS reversal
      FROM ledger_entries GROUP BY partner_id) r USING (partner_id)
    WHERE a.entry_count <> coalesce(r.n, 0) OR a.topup_count <> coalesce(r.topup, 0)
      OR a.reservation_count <> coalesce(r.reservation, 0) OR a.confirm_count <> coalesce(r.confirm, 0)
      OR a.refund_count <> coalesce(r.refund, 0) OR a.debit_count <> coalesce(r.debit, 0)
      OR a.bonus_reversal_count <> coalesce(r.reversal, 0) OR a.last_entry_at IS DISTINCT FROM r.last`
)

/** Days where ledger_usage_days differs from the rows' sum; must be none. */
const misusedDays = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM ledger_usage_days u FULL JOIN (
      SELECT partner_id, (floor(occurred_at / 86400000.0) * 86400000)::bigint AS day_start_ms,
        sum(CASE WHEN type = 'confirm' THEN amount_minor ELSE -amount_minor END) AS spent
      FROM ledger_entries WHERE type = 'confirm' OR (type = 'refund' AND task_id IS NULL)
      GROUP BY 1, 2) r USING (partner_id, day_start_ms)
    WHERE u.spent_minor IS DISTINCT FROM r.spent`
)

const FILTERS: ReadonlyArray<Ledger.EntryFilter> = [
  {},
  { type: "refund" },
  { attribution: "company" },
  { fromMs: T0 + 3 * 86_400_000, untilMs: T0 + 9 * 86_400_000 + 7 * MINUTE },
  { type: "confirm", fromMs: T0 + 5 * 86_400_000 }
]

/** The store's pages against the OFFSET query and count(*) they replace. */
const pagesMatchOffsetQuery = (partnerId: Ids.PartnerId, nonEmpty: boolean) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* LedgerStore
    for (const f of FILTERS) {
      const where = sql.and([
        sql`partner_id = ${partnerId}`,
        ...(f.type === undefined ? [] : [sql`type = ${f.type}`]),
        ...(f.attribution === undefined ? [] : [sql`attribution = ${f.attribution}`]),
        ...(f.fromMs === undefined ? [] : [sql`occurred_at >= ${f.fromMs}`]),
        ...(f.untilMs === undefined ? [] : [sql`occurred_at < ${f.untilMs}`])
      ])
      const [{ n }] = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM ledger_entries WHERE ${where}`) as [
        { n: number }
      ]
      if (nonEmpty) expect(n).toBeGreaterThan(100)
      expect(yield* store.countEntries(partnerId, f)).toBe(n)
      for (const offset of [0, 20, Math.floor(n / 2), Math.max(0, n - 5), n]) {
        const expected = yield* sql<{ id: string }>`SELECT id FROM ledger_entries WHERE ${where}
          ORDER BY occurred_at DESC, seq DESC LIMIT 20 OFFSET ${offset}`
        const page = yield* store.listEntries(partnerId, f, offset, 20)
        expect(page.total, JSON.stringify(f)).toBe(n)
        expect(
          page.items.map((e) => e.id),
          `${JSON.stringify(f)} @${offset}`
        ).toEqual(expected.map((r) => r.id))
      }
    }
  })

const ledgerOn = (client: Layer.Layer<SqlClient.SqlClient | DatabaseSchema.DatabaseSchema, unknown>) =>
  Ledger.Ledger.layer.pipe(
    Layer.provideMerge(SqlLedgerStore.layer),
    Layer.provideMerge(OutboxOnMemory),
    Layer.provideMerge(Ids.Ids.layer),
    Layer.provideMerge(client)
  )

/** Migrates a history written before 0027 and checks what 0027 made of it. */
const backfill = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* migrateUpTo(BEFORE)
  yield* writeHistory
  const applied = yield* Migrations.run
  // 0027 first, then whatever later migrations exist.
  expect(applied.map(([id]) => id)[0]).toBe(BEFORE + 1)
  expect((yield* misnumbered)[0]?.n).toBe(0)
  expect(yield* miscounted).toEqual([])
  expect((yield* misusedDays)[0]?.n).toBe(0)
  expect(yield* sql`SELECT 1 FROM ledger_entries WHERE account_seq IS NULL OR type_seq IS NULL`).toEqual([])
  yield* pagesMatchOffsetQuery(testPartner("p_big"), true)
  yield* pagesMatchOffsetQuery(testPartner("p_small"), false)

  // A movement after the backfill continues the numbering.
  const ledger = yield* Ledger.Ledger
  yield* ledger.credit(testPartner("p_big"), { kind: "bonus", amountMinor: 5 })
  const newest = yield* sql<{ accountSeq: number; typeSeq: number }>`SELECT account_seq, type_seq FROM ledger_entries
    WHERE partner_id = 'p_big' ORDER BY occurred_at DESC, seq DESC LIMIT 1`
  const topups = yield* sql<{
    n: number
  }>`SELECT count(*)::int AS n FROM ledger_entries WHERE partner_id = 'p_big' AND type = 'topup'`
  expect(newest).toEqual([{ accountSeq: BIG + 1, typeSeq: topups[0]?.n }])
  expect(yield* miscounted).toEqual([])
})

it.live(
  "PGlite: 0027 numbers, counts and sums an existing history in batches; pages equal the OFFSET query",
  () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE SCHEMA IF NOT EXISTS frank`
      yield* backfill
    }).pipe(Effect.provide(ledgerOn(PgliteDatabase.layer))),
  180_000
)

if (url !== undefined && url.length > 0)
  it.live(
    "PostgreSQL: 0027 numbers, counts and sums an existing history in batches; pages equal the OFFSET query",
    () =>
      Effect.gen(function* () {
        const schema = `frank_t_${randomUUID().replaceAll("-", "")}`
        yield* Effect.acquireRelease(runScript(url, `CREATE SCHEMA ${schema}`), () =>
          Effect.ignore(runScript(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`))
        )
        yield* Effect.provide(
          backfill,
          ledgerOn(PostgresDatabase.layer(Redacted.make(url), { maxConnections: 2, schema }))
        )
      }).pipe(Effect.scoped),
    180_000
  )

/** Concurrent movements of every kind on one partner, then the numbering and counts checked against the rows. */
const concurrentMovements = Effect.gen(function* () {
  const ledger = yield* Ledger.Ledger
  const p = testPartner(`p_concurrent_${randomUUID()}`)
  yield* ledger.credit(p, { kind: "topup", amountMinor: 10_000_000 })
  const task = (i: number) =>
    Effect.gen(function* () {
      yield* ledger.reserve(p, { taskId: testTask(`t${i}`), amountMinor: 1_000 })
      if (i % 3 === 0) yield* ledger.refund(p, { taskId: testTask(`t${i}`) })
      else yield* ledger.confirm(p, { taskId: testTask(`t${i}`), amountMinor: 400 + i })
    })
  const other = (i: number) =>
    i % 2 === 0 ? ledger.credit(p, { kind: "bonus", amountMinor: 10 + i }) : ledger.debit(p, { amountMinor: 5 + i })
  yield* Effect.all(
    Array.from({ length: 40 }, (_, i) => (i % 4 === 0 ? other(i) : task(i))),
    { concurrency: 8, discard: true }
  )
  expect((yield* misnumbered)[0]?.n).toBe(0)
  expect(yield* miscounted).toEqual([])
  expect((yield* misusedDays)[0]?.n).toBe(0)
  const all = yield* ledger.listEntries(p, {}, 0, 1_000)
  const byPages: Array<Ledger.LedgerEntry> = []
  for (let offset = 0; offset < all.total; offset += 7)
    byPages.push(...(yield* ledger.listEntries(p, {}, offset, 7)).items)
  expect(byPages).toEqual(all.items)
  expect(Ledger.foldEntries(all.items)).toEqual(yield* ledger.totals(p))
})

it.live(
  "PGlite: concurrent movements of one partner leave its numbering without gaps and its counts exact",
  () =>
    concurrentMovements.pipe(
      Effect.provide(
        Ledger.Ledger.layer.pipe(
          Layer.provideMerge(TestDatabase.layerPgliteWithLedger()),
          Layer.provideMerge(OutboxOnMemory),
          Layer.provideMerge(Ids.Ids.layer)
        )
      )
    ),
  120_000
)

if (url !== undefined && url.length > 0)
  it.live(
    "PostgreSQL: concurrent movements of one partner leave its numbering without gaps and its counts exact",
    () =>
      concurrentMovements.pipe(
        Effect.provide(
          Ledger.Ledger.layer.pipe(
            Layer.provideMerge(TestDatabase.layerPostgresWithLedger(url, { maxConnections: 8 })),
            Layer.provideMerge(OutboxOnMemory),
            Layer.provideMerge(Ids.Ids.layer)
          )
        )
      ),
    120_000
  )

/**
 * bench/retention: a day's webhook retention over 30 days of history, time partitions (migration
 * 0032, this build) against the batched row deletion of the build before (the schema of
 * migration 0031, retention's functions of 0018), in the same run.
 *
 * Each side gets a schema of its own with DAYS days of history at DELIVERIES deliveries in all
 * (two per event, one attempt each, every one delivered, a hundred partners). Then CYCLES cycles:
 * a new day of history is written, and the day that has passed the retention period goes, as
 * the host's sweep would do it (the partitioned side also creates the days ahead first). Per
 * cycle the sweep's time and the WAL it wrote are taken from EXPLAIN (ANALYZE, WAL) of one
 * statement that runs the sweep's statements in a loop (one transaction, where the host runs
 * one per batch: the same work, minus the commits), so other sessions' WAL on a shared server is
 * not counted. After the cycles: the three tables' size, indexes and TOAST included. The sides
 * run one after the other; the machine is shared, so times are indicative, WAL and sizes not.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:retention
 *   (DELIVERIES, default 1000000; DAYS, default 30; CYCLES, default 3)
 */
import { randomUUID } from "node:crypto"
import { Migrator, SqlClient } from "@effect/sql"
import { Migrations, PostgresDatabase } from "@frank/adapters"
import { Effect, Redacted } from "effect"
import { adminStatement, databaseUrlOrExit } from "./support/local.js"

const url = databaseUrlOrExit("bench/retention")
const DELIVERIES = Number(process.env.DELIVERIES ?? 1_000_000)
const DAYS = Number(process.env.DAYS ?? 30)
const CYCLES = Number(process.env.CYCLES ?? 3)
const DAY = 24 * 60 * 60 * 1000
const T0 = Date.UTC(2026, 0, 1)
const BATCH = 1_000
const PARTITION_AHEAD = 3
/** Events per day: two deliveries each. */
const EVENTS_PER_DAY = Math.round(DELIVERIES / DAYS / 2)

interface Side {
  readonly name: string
  /** The highest migration the side's schema runs. */
  readonly latest: number
  readonly partitioned: boolean
}

/** The host's sweep as one statement: creates days ahead (partitioned), then drains deliveries and events in batches. */
const SWEEP_FUNCTION = (partitioned: boolean) => `
CREATE FUNCTION bench_sweep(p_now bigint, p_before bigint) RETURNS bigint LANGUAGE plpgsql AS $fn$
DECLARE
  n integer;
  total bigint := 0;
BEGIN
  ${partitioned ? `PERFORM webhook_prepare_partitions(p_now, ${DAY}, ${PARTITION_AHEAD});` : ""}
  LOOP
    SELECT ${partitioned ? "webhook_drop_expired_partitions(p_before) + " : ""}webhook_delete_expired_deliveries(p_before, ${BATCH}) INTO n;
    total := total + n;
    EXIT WHEN n < ${BATCH};
  END LOOP;
  LOOP
    SELECT ${partitioned ? "webhook_drop_expired_event_partitions() + " : ""}webhook_delete_expired_events(p_before, ${BATCH}) INTO n;
    total := total + n;
    EXIT WHEN n < ${BATCH};
  END LOOP;
  RETURN total;
END
$fn$`

/** One day of delivered history written at `day`'s start onwards, as the fan-out and the worker leave it. */
const writeDay = (partitioned: boolean, day: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const start = T0 + day * DAY
    const at = `${start} + (g::bigint * ${DAY}) / ${EVENTS_PER_DAY}`
    const key = partitioned ? ", created_at" : ""
    yield* sql.unsafe(`INSERT INTO webhook_events (partner_id, id, type, occurred_at, payload${key})
      SELECT 'p_' || (g % 100), md5('ev${day}:' || g)::uuid, 'webhook.test', ${at}, '{"type":"webhook.test","data":{}}'${partitioned ? `, ${at}` : ""}
      FROM generate_series(0, ${EVENTS_PER_DAY - 1}) g`)
    yield* sql.unsafe(`INSERT INTO webhook_deliveries (partner_id, id, endpoint_id, event_id, event_type, status, attempts,
        next_attempt_at, created_at, updated_at)
      SELECT 'p_' || (g % 100), md5('d${day}:' || g || ':' || k)::uuid, md5('ep' || (g % 100) || ':' || k)::uuid,
        md5('ev${day}:' || g)::uuid, 'webhook.test', 'delivered', 1, NULL, ${at}, ${at} + 50
      FROM generate_series(0, ${EVENTS_PER_DAY - 1}) g, generate_series(1, 2) k`)
    yield* sql.unsafe(`INSERT INTO webhook_attempts (partner_id, delivery_id, attempt, started_at, duration_ms, response_status,
        error${partitioned ? ", delivery_created_at" : ""})
      SELECT 'p_' || (g % 100), md5('d${day}:' || g || ':' || k)::uuid, 1, ${at}, 50, 200, NULL${partitioned ? `, ${at}` : ""}
      FROM generate_series(0, ${EVENTS_PER_DAY - 1}) g, generate_series(1, 2) k`)
  })

interface Result {
  readonly ms: ReadonlyArray<number>
  readonly walBytes: ReadonlyArray<number>
  readonly removed: ReadonlyArray<number>
  readonly sizeBytes: number
}

const measure = (side: Side) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* Migrator.make({})({
      loader: Effect.map(Migrations.loader, (all) => all.filter(([id]) => id <= side.latest)),
      table: "effect_sql_migrations"
    })
    yield* sql.unsafe(SWEEP_FUNCTION(side.partitioned))
    yield* sql`INSERT INTO webhook_endpoints (partner_id, id, url, event_types, active, secret, created_at, updated_at)
      SELECT 'p_' || p, md5('ep' || p || ':' || k)::uuid, 'https://receiver.example/hook', NULL, true, 'whsec_bench', 0, 0
      FROM generate_series(0, 99) p, generate_series(1, 2) k`
    for (let day = 0; day < DAYS; day++) {
      // The partitioned side's days exist before their rows, as the sweep makes them ahead.
      if (side.partitioned) yield* sql`SELECT webhook_prepare_partitions(${T0 + day * DAY}, ${DAY}, ${PARTITION_AHEAD})`
      yield* writeDay(side.partitioned, day)
    }
    yield* sql`VACUUM ANALYZE webhook_events, webhook_deliveries, webhook_attempts`.pipe(Effect.ignore)
    const ms: Array<number> = []
    const walBytes: Array<number> = []
    const removed: Array<number> = []
    for (let c = 0; c < CYCLES; c++) {
      const now = T0 + (DAYS + c) * DAY
      if (side.partitioned) yield* sql`SELECT webhook_prepare_partitions(${now}, ${DAY}, ${PARTITION_AHEAD})`
      yield* writeDay(side.partitioned, DAYS + c)
      // Day c is past a retention period of DAYS days once `now` is a day past its end.
      const before = T0 + (c + 1) * DAY
      const [plan] = yield* sql.unsafe<{ "QUERY PLAN": unknown }>(
        `EXPLAIN (ANALYZE, WAL, TIMING OFF, FORMAT JSON) SELECT bench_sweep(${now + DAY}, ${before})`
      )
      const explained = (plan?.["QUERY PLAN"] ?? []) as Array<{
        Plan: Record<string, number>
        "Execution Time": number
      }>
      const top = explained[0]
      ms.push(top?.["Execution Time"] ?? Number.NaN)
      walBytes.push(top?.Plan["WAL Bytes"] ?? Number.NaN)
      const [left] = yield* sql<{
        n: number
      }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE created_at < ${before}`
      const [all] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries`
      if ((left?.n ?? 1) !== 0) throw new Error(`bench/retention: ${side.name} left ${left?.n} expired deliveries`)
      removed.push(all?.n ?? 0)
    }
    const [size] = yield* sql<{
      bytes: number
    }>`SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
        AND c.relname ~ '^webhook_(events|deliveries|attempts)'`
    return { ms, walBytes, removed, sizeBytes: Number(size?.bytes ?? 0) } satisfies Result
  })

const runSide = (side: Side) =>
  Effect.gen(function* () {
    const schema = `bench_retention_${randomUUID().replaceAll("-", "").slice(0, 12)}`
    yield* Effect.promise(() => adminStatement(url, `CREATE SCHEMA ${schema}`))
    const client = PostgresDatabase.layer(Redacted.make(url), { maxConnections: 1, schema })
    return yield* Effect.provide(measure(side), client).pipe(
      Effect.ensuring(Effect.promise(() => adminStatement(url, `DROP SCHEMA ${schema} CASCADE`)))
    )
  })

const program = Effect.gen(function* () {
  const sides: ReadonlyArray<Side> = [
    { name: "batched row deletion (0031's schema, the baseline)", latest: 31, partitioned: false },
    { name: "time partitions, dropped by day (this build)", latest: Number.MAX_SAFE_INTEGER, partitioned: true }
  ]
  const results: Array<Result> = []
  for (const side of sides) results.push(yield* runSide(side))
  const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
  const mib = (b: number) => (b / 1024 / 1024).toFixed(1)
  const base = results[0]
  if (base === undefined) return
  console.log(
    `bench/retention: ${DAYS} days of history at ${EVENTS_PER_DAY * 2 * DAYS} deliveries (${EVENTS_PER_DAY} events a day, two deliveries and one attempt each), ${CYCLES} cycles of one day written, one day removed`
  )
  console.log("")
  console.log(
    "| retention | ms per day's sweep | ratio | WAL per sweep (MiB) | ratio | tables + indexes after (MiB) | ratio |"
  )
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
  sides.forEach((side, i) => {
    const r = results[i] as Result
    console.log(
      `| ${side.name} | ${mean(r.ms).toFixed(0)} | ${(mean(r.ms) / mean(base.ms)).toFixed(3)}× | ${mib(mean(r.walBytes))} | ${(mean(r.walBytes) / mean(base.walBytes)).toFixed(4)}× | ${mib(r.sizeBytes)} | ${(r.sizeBytes / base.sizeBytes).toFixed(2)}× |`
    )
  })
  console.log("")
  sides.forEach((side, i) => {
    const r = results[i] as Result
    console.log(
      `${side.name}: per cycle ms ${r.ms.map((x) => x.toFixed(0)).join(", ")}; WAL MiB ${r.walBytes.map(mib).join(", ")}; deliveries kept ${r.removed.join(", ")}`
    )
  })
})

Effect.runPromise(program).then(
  () => process.exit(0),
  (e) => {
    console.error(e)
    process.exit(1)
  }
)

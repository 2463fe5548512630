/**
 * bench/history-backfill — how long migration 0027 takes on an existing ledger: a schema migrated
 * up to 0026, ROWS entries (1,000,000) for one partner written as the builds before 0027 wrote
 * them, then the migrator applies 0027 (numbering, counts, usage days, indexes) and the time is
 * printed. PostgreSQL only (DATABASE_URL); the schema is dropped at the end.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --conditions=@frank/source --import tsx bench/history-backfill.ts
 */
import { randomUUID } from "node:crypto"
import { Migrator, SqlClient } from "@effect/sql"
import { Migrations, PostgresDatabase } from "@frank/adapters"
import { Effect, Redacted } from "effect"
import pg from "pg"

const url = process.env.DATABASE_URL ?? ""
const ROWS = Number(process.env.ROWS ?? 1_000_000)

const admin = (text: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(text)
    } finally {
      await client.end()
    }
  })

const main = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* Migrator.make({})({
    loader: Effect.map(Migrations.loader, (all) => all.filter(([id]) => id <= 26)),
    table: "effect_sql_migrations"
  })
  yield* sql`INSERT INTO ledger_accounts (partner_id) VALUES ('p_backfill')`
  yield* sql`INSERT INTO ledger_entries (partner_id, id, type, kind, amount_minor, task_id, label, description, occurred_at)
    SELECT 'p_backfill', gen_random_uuid(),
      CASE i % 3 WHEN 1 THEN 'reservation' WHEN 2 THEN 'confirm' ELSE 'refund' END,
      CASE i % 3 WHEN 1 THEN 'task_hold' WHEN 2 THEN 'task_charge' ELSE 'task_release' END,
      700, 'task_' || (i / 3), 'l', 'd', 1700000000000 + i * 30000
    FROM generate_series(1, ${ROWS}::bigint) AS i`
  yield* sql`ANALYZE ledger_entries`
  const t = performance.now()
  const applied = yield* Migrations.run
  const seconds = (performance.now() - t) / 1000
  console.log(
    `migration ${applied.map(([id, name]) => `${id}_${name}`).join(", ")} on ${ROWS.toLocaleString("en")} rows: ${seconds.toFixed(1)} s`
  )
})

const schema = `frank_b_${randomUUID().replaceAll("-", "").slice(0, 12)}`
if (url.length === 0) console.log("bench/history-backfill: DATABASE_URL is not set. Nothing measured.")
else
  Effect.runPromise(
    Effect.ensuring(
      Effect.zipRight(
        admin(`CREATE SCHEMA ${schema}`),
        Effect.scoped(Effect.provide(main, PostgresDatabase.layer(Redacted.make(url), { maxConnections: 1, schema })))
      ),
      Effect.ignore(admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`))
    )
  ).catch((e) => {
    console.error(e)
    process.exit(1)
  })

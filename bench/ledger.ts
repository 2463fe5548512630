/**
 * bench/ledger — reserve+confirm pairs per second through the engine (Ledger on SqlLedgerStore,
 * PostgreSQL) against a baseline that runs the same SQL statements with plain `pg` in the same
 * run: sequentially, and with 32 concurrent reservers on one account.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:ledger
 *
 * Prints a table with pairs/s and the ratio engine / baseline (target ≥ 0.7).
 */
import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { postgresTestDatabase, SqlLedgerStore } from "@frank/adapters"
import { Ids, Ledger } from "@frank/core"
import { Effect, Layer } from "effect"
import pg from "pg"

const url = process.env.DATABASE_URL ?? ""
if (url.length === 0) {
  console.log("bench/ledger needs DATABASE_URL (a PostgreSQL server); nothing measured.")
  process.exit(0)
}

const SEQUENTIAL_PAIRS = Number(process.env.BENCH_PAIRS ?? 1500)
const CONCURRENT_PAIRS = Number(process.env.BENCH_CONCURRENT_PAIRS ?? 3000)
const CONCURRENCY = 32
const POOL = 32

/** The engine's statements, written out by hand against node-postgres. */
const makeBaseline = (pool: pg.Pool) => {
  const tx = async <A>(f: (c: pg.PoolClient) => Promise<A>): Promise<A> => {
    const c = await pool.connect()
    try {
      await c.query("BEGIN")
      const a = await f(c)
      await c.query("COMMIT")
      return a
    } catch (e) {
      await c.query("ROLLBACK")
      throw e
    } finally {
      c.release()
    }
  }
  const lock = (c: pg.PoolClient, partnerId: string) =>
    c.query("SELECT total_minor, used_minor, reserved_minor FROM ledger_accounts WHERE partner_id = $1 FOR UPDATE", [partnerId])
  const hold = (c: pg.PoolClient, partnerId: string, taskId: string) =>
    c.query("SELECT * FROM ledger_holds WHERE partner_id = $1 AND task_id = $2 FOR UPDATE", [partnerId, taskId])
  const entry = (partnerId: string, type: string, kind: string, amount: number, taskId: string, now: number) => [
    partnerId, randomUUID(), type, kind, amount, null, taskId, null, null, kind, kind, now
  ]
  const insertEntries = (c: pg.PoolClient, rows: unknown[][]) => {
    const params = rows.flat()
    const values = rows.map((_, r) => `(${Array.from({ length: 12 }, (_, i) => `$${r * 12 + i + 1}`).join(", ")})`).join(", ")
    return c.query(
      `INSERT INTO ledger_entries (partner_id, id, type, kind, amount_minor, unit_price_micros, task_id, attribution, reference, label, description, occurred_at) VALUES ${values}`,
      params
    )
  }
  return {
    reserve: (partnerId: string, taskId: string, amount: number) =>
      tx(async (c) => {
        const acc = (await lock(c, partnerId)).rows[0]
        await hold(c, partnerId, taskId)
        const now = Date.now()
        const e = entry(partnerId, "reservation", "task_hold", amount, taskId, now)
        await insertEntries(c, [e])
        await c.query(
          `INSERT INTO ledger_holds (partner_id, task_id, status, reserved_minor, charged_minor, released_minor, reservation_entry_id, settlement_entry_id, created_at, settled_at)
           VALUES ($1, $2, 'open', $3, 0, 0, $4, NULL, $5, NULL)
           ON CONFLICT (partner_id, task_id) DO UPDATE SET status = EXCLUDED.status, charged_minor = EXCLUDED.charged_minor,
             released_minor = EXCLUDED.released_minor, settlement_entry_id = EXCLUDED.settlement_entry_id, settled_at = EXCLUDED.settled_at`,
          [partnerId, taskId, amount, e[1], now]
        )
        await c.query("UPDATE ledger_accounts SET total_minor = $1, used_minor = $2, reserved_minor = $3 WHERE partner_id = $4", [
          Number(acc.total_minor), Number(acc.used_minor), Number(acc.reserved_minor) + amount, partnerId
        ])
      }),
    confirm: (partnerId: string, taskId: string, charge: number, reserved: number) =>
      tx(async (c) => {
        const acc = (await lock(c, partnerId)).rows[0]
        await hold(c, partnerId, taskId)
        const now = Date.now()
        const e1 = entry(partnerId, "confirm", "task_charge", charge, taskId, now)
        const e2 = entry(partnerId, "refund", "task_release", reserved - charge, taskId, now)
        await insertEntries(c, [e1, e2])
        await c.query(
          `INSERT INTO ledger_holds (partner_id, task_id, status, reserved_minor, charged_minor, released_minor, reservation_entry_id, settlement_entry_id, created_at, settled_at)
           VALUES ($1, $2, 'confirmed', $3, $4, $5, $6, $7, $8, $8)
           ON CONFLICT (partner_id, task_id) DO UPDATE SET status = EXCLUDED.status, charged_minor = EXCLUDED.charged_minor,
             released_minor = EXCLUDED.released_minor, settlement_entry_id = EXCLUDED.settlement_entry_id, settled_at = EXCLUDED.settled_at`,
          [partnerId, taskId, reserved, charge, reserved - charge, e1[1], e1[1], now]
        )
        await c.query("UPDATE ledger_accounts SET total_minor = $1, used_minor = $2, reserved_minor = $3 WHERE partner_id = $4", [
          Number(acc.total_minor), Number(acc.used_minor) + charge, Number(acc.reserved_minor) - reserved, partnerId
        ])
      })
  }
}

const timeIt = async (pairs: number, concurrency: number, pair: (i: number) => Promise<void>) => {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++
        if (i >= pairs) return
        await pair(i)
      }
    })
  )
  return pairs / ((performance.now() - started) / 1000)
}

const program = Effect.gen(function* () {
  const ledger = yield* Ledger
  // The engine's database is a fresh one; the baseline connects to the same database by name.
  const sql = yield* SqlClient.SqlClient
  const database = (yield* sql<{ currentDatabase: string }>`SELECT current_database()`)[0]?.currentDatabase ?? ""
  const baselineUrl = new URL(url)
  baselineUrl.pathname = `/${database}`
  const pool = new pg.Pool({ connectionString: baselineUrl.toString(), max: POOL })
  const baseline = makeBaseline(pool)
  const run = (p: Promise<number>) => Effect.promise(() => p)

  const engineRound = (label: string, pairs: number, concurrency: number) =>
    Effect.gen(function* () {
      const partnerId = `bench-engine-${label}-${randomUUID()}`
      yield* ledger.credit(partnerId, { kind: "topup", amountMinor: 1_000_000_000 })
      return yield* run(
        timeIt(pairs, concurrency, (i) =>
          Effect.runPromise(
            Effect.gen(function* () {
              yield* ledger.reserve(partnerId, { taskId: `t${i}`, amountMinor: 1_000 })
              yield* ledger.confirm(partnerId, { taskId: `t${i}`, amountMinor: 700 })
            }).pipe(Effect.provide(context))
          )
        )
      )
    })
  const context = yield* Effect.context<Ledger>()
  const baselineRound = (label: string, pairs: number, concurrency: number) =>
    Effect.gen(function* () {
      const partnerId = `bench-baseline-${label}-${randomUUID()}`
      yield* ledger.credit(partnerId, { kind: "topup", amountMinor: 1_000_000_000 })
      return yield* run(
        timeIt(pairs, concurrency, async (i) => {
          await baseline.reserve(partnerId, `t${i}`, 1_000)
          await baseline.confirm(partnerId, `t${i}`, 700, 1_000)
        })
      )
    })

  // Warm-up of both paths (JIT, connection pools, plans).
  yield* engineRound("warm", 200, 4)
  yield* baselineRound("warm", 200, 4)

  const rows: Array<[string, number, number]> = []
  for (const [label, pairs, concurrency] of [
    ["sequential", SEQUENTIAL_PAIRS, 1],
    [`${CONCURRENCY} concurrent, one account`, CONCURRENT_PAIRS, CONCURRENCY]
  ] as const) {
    // Interleaved rounds; the best of two for each side evens out a noisy shared machine.
    const b1 = yield* baselineRound(label, pairs, concurrency)
    const e1 = yield* engineRound(label, pairs, concurrency)
    const b2 = yield* baselineRound(label, pairs, concurrency)
    const e2 = yield* engineRound(label, pairs, concurrency)
    rows.push([label, Math.max(e1, e2), Math.max(b1, b2)])
  }
  yield* Effect.promise(() => pool.end())

  console.log("\nbench/ledger — reserve+confirm pairs per second on PostgreSQL")
  console.log("| scenario | engine pairs/s | plain pg pairs/s | ratio |")
  console.log("|---|---:|---:|---:|")
  for (const [label, engine, base] of rows) console.log(`| ${label} | ${engine.toFixed(0)} | ${base.toFixed(0)} | ${(engine / base).toFixed(2)} |`)
})

const Engine = Ledger.layer.pipe(
  Layer.provideMerge(SqlLedgerStore),
  Layer.provideMerge(postgresTestDatabase(url, { maxConnections: POOL })),
  Layer.provide(Ids.Live)
)

Effect.runPromise(program.pipe(Effect.provide(Engine), Effect.scoped)).catch((e) => {
  console.error(e)
  process.exit(1)
})

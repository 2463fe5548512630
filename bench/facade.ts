/**
 * bench/facade — ledger reserve+confirm through the Promise API (`createFrank`, `frank.ledger`)
 * against the same operations through Effect (`Ledger.Ledger` run on the same Frank's runtime),
 * in the same run, on the same engine and database:
 *   (a) one caller, sequential pairs;  (b) BENCH_CALLERS (default 32) concurrent callers, one
 *   account each, every caller awaiting its own pairs in sequence.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --conditions=@frank/source --import tsx bench/facade.ts
 *
 * Without DATABASE_URL it runs on embedded PGlite (in memory). On PostgreSQL it works in a fresh
 * schema, dropped at the end. Each scenario runs ROUNDS round pairs, the two sides back to back
 * (order alternating), each round PAIRS_PER_ROUND pairs per caller; the reported ratio is the
 * median of the per-pair ratios (the machine is shared and its load drifts). One op = one reserve
 * or one confirm. Target: Promise/Effect ≥ 0.9.
 */
import { randomUUID } from "node:crypto"
import { TestDatabase } from "@frank/adapters"
import { Ids, Ledger } from "@frank/core"
import { createFrank, type Frank } from "@frank/host/embed"
import { Effect, Schema } from "effect"
import pg from "pg"

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const PAIRS_PER_ROUND = Number(process.env.BENCH_PAIRS ?? 300)
const CONCURRENCY = Number(process.env.BENCH_CALLERS ?? 32)
const RESERVE = 1_000
const CHARGE = 700

const url = process.env.DATABASE_URL ?? ""

/** A fresh schema on the server (search_path through the URL), or embedded PGlite in memory. */
const openDatabase = async () => {
  if (url.length === 0) return { database: { embedded: "memory" } as const, drop: async () => {}, where: "PGlite" }
  const schema = `bench_facade_${randomUUID().replaceAll("-", "")}`
  const admin = async (text: string) => {
    const c = new pg.Client({ connectionString: url })
    await c.connect()
    await c.query(text)
    await c.end()
  }
  await admin(`CREATE SCHEMA ${schema}`)
  return {
    // A connection per caller: the pool, not the facade, would otherwise set the pace.
    database: { databaseUrl: TestDatabase.withSearchPath(url, schema), maxConnections: CONCURRENCY + 4 },
    drop: () => admin(`DROP SCHEMA ${schema} CASCADE`),
    where: "PostgreSQL"
  }
}

const taskId = () => randomUUID()
const asPartner = Schema.decodeSync(Ids.PartnerId)
const asTask = Schema.decodeSync(Ids.TaskId)

/** `pairs` reserve+confirm through the Promise API, for one partner. */
const viaPromises = async (frank: Frank, partnerId: string, pairs: number) => {
  for (let i = 0; i < pairs; i++) {
    const t = taskId()
    await frank.ledger.reserve(partnerId, { taskId: t, amountMinor: RESERVE })
    await frank.ledger.confirm(partnerId, { taskId: t, amountMinor: CHARGE })
  }
}

/** The same through Effect: the Ledger service on the same runtime, one fiber per caller. */
const viaEffect = (partnerId: string, pairs: number) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger.Ledger
    const partner = asPartner(partnerId)
    for (let i = 0; i < pairs; i++) {
      const t = asTask(taskId())
      yield* ledger.reserve(partner, { taskId: t, amountMinor: RESERVE })
      yield* ledger.confirm(partner, { taskId: t, amountMinor: CHARGE })
    }
  })

const opsPerSecond = async (callers: number, run: () => Promise<void>) => {
  const started = performance.now()
  await run()
  return (callers * PAIRS_PER_ROUND * 2) / ((performance.now() - started) / 1000)
}

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2
}

const scenario = async (frank: Frank, label: string, partners: ReadonlyArray<string>) => {
  const promise = () =>
    opsPerSecond(partners.length, () =>
      Promise.all(partners.map((p) => viaPromises(frank, p, PAIRS_PER_ROUND))).then(() => {})
    )
  const effect = () =>
    opsPerSecond(partners.length, () =>
      frank.runtime.runPromise(
        Effect.asVoid(Effect.forEach(partners, (p) => viaEffect(p, PAIRS_PER_ROUND), { concurrency: "unbounded" }))
      )
    )
  await promise()
  await effect()
  const rows: Array<{ promise: number; effect: number }> = []
  for (let round = 0; round < ROUNDS; round++) {
    const first = round % 2 === 0
    const a = first ? await promise() : await effect()
    const b = first ? await effect() : await promise()
    rows.push(first ? { promise: a, effect: b } : { promise: b, effect: a })
  }
  const ratios = rows.map((r) => r.promise / r.effect)
  console.log(
    `| ${label} | ${median(rows.map((r) => r.promise)).toFixed(0)} | ${median(rows.map((r) => r.effect)).toFixed(0)} | ` +
      `**${median(ratios).toFixed(2)}** (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) |`
  )
}

const main = async () => {
  const db = await openDatabase()
  const frank = await createFrank({
    ...db.database,
    pepper: "bench-pepper-0123456789abcdef",
    publicBaseUrl: "http://127.0.0.1"
  })
  try {
    const partners = await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, i) => {
        const p = await frank.partners.create(`bench-${i}`)
        await frank.ledger.credit(p.id, { kind: "topup", amountMinor: 1_000_000_000 })
        return p.id
      })
    )
    console.log(`\nbench/facade — reserve+confirm on ${db.where}; Promise API vs Effect, same engine, same run`)
    console.log(`${ROUNDS} round pairs × ${PAIRS_PER_ROUND} pairs per caller; 1 op = one reserve or confirm\n`)
    console.log("| scenario | Promise API ops/s | Effect ops/s | ratio Promise/Effect (min–max) |")
    console.log("|---|---:|---:|---:|")
    await scenario(frank, "1 caller, sequential", partners.slice(0, 1))
    await scenario(frank, `${CONCURRENCY} concurrent callers`, partners)
  } finally {
    await frank.close()
    await db.drop()
  }
}

await main()

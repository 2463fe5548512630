/**
 * 50 parallel reservations against one account never take available below zero: exactly the
 * affordable number succeed, on embedded PGlite and on PostgreSQL.
 */
import { pgliteTestDatabase, postgresTestDatabase, SqlLedgerStore } from "@frank/adapters"
import { foldEntries, Ids, InsufficientFunds, Ledger } from "@frank/core"
import { expect, layer } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"

const engines: Array<[string, Layer.Layer<Ledger, unknown>]> = [
  ["PGlite", Ledger.layer.pipe(Layer.provide(SqlLedgerStore), Layer.provide(pgliteTestDatabase()), Layer.provide(Ids.Live))]
]
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  engines.push([
    "PostgreSQL",
    Ledger.layer.pipe(Layer.provide(SqlLedgerStore), Layer.provide(postgresTestDatabase(url, { maxConnections: 20 })), Layer.provide(Ids.Live))
  ])

for (const [engine, EngineLayer] of engines) {
  layer(EngineLayer, { timeout: 120_000, excludeTestServices: true })(`parallel reservations on ${engine}`, (it) => {
    it.effect("exactly floor(1000 / 30) = 33 of 50 succeed and the rest are refused", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger
        const partnerId = `p_concurrency_${engine}`
        yield* ledger.credit(partnerId, { kind: "topup", amountMinor: 100_000 })
        const results = yield* Effect.all(
          Array.from({ length: 50 }, (_, i) => Effect.either(ledger.reserve(partnerId, { taskId: `task-${i}`, amountMinor: 3_000 }))),
          { concurrency: "unbounded" }
        )
        const ok = results.filter(Either.isRight)
        const refused = results.filter(Either.isLeft)
        expect(ok).toHaveLength(33)
        expect(refused).toHaveLength(17)
        for (const r of refused) expect(r.left).toBeInstanceOf(InsufficientFunds)
        const totals = yield* ledger.totals(partnerId)
        expect(totals).toEqual({ totalMinor: 100_000, usedMinor: 0, reservedMinor: 99_000 })
        const rows = yield* ledger.listEntries(partnerId, {}, 0, 100)
        expect(foldEntries(rows.items)).toEqual(totals)
        expect(rows.items.filter((e) => e.type === "reservation")).toHaveLength(33)
      })
    )

    it.effect("parallel confirms and refunds of the same holds resolve each exactly once", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger
        const partnerId = `p_settle_${engine}`
        yield* ledger.credit(partnerId, { kind: "topup", amountMinor: 100_000 })
        for (let i = 0; i < 10; i++) yield* ledger.reserve(partnerId, { taskId: `t${i}`, amountMinor: 5_000 })
        const attempts = Array.from({ length: 10 }, (_, i) => [
          Effect.either(ledger.confirm(partnerId, { taskId: `t${i}`, amountMinor: 4_000 })),
          Effect.either(ledger.refund(partnerId, { taskId: `t${i}` })),
          Effect.either(ledger.confirm(partnerId, { taskId: `t${i}`, amountMinor: 4_000 }))
        ]).flat()
        yield* Effect.all(attempts, { concurrency: "unbounded" })
        const rows = (yield* ledger.listEntries(partnerId, {}, 0, 1000)).items
        for (let i = 0; i < 10; i++) {
          const settlements = rows.filter((e) => e.taskId === `t${i}` && (e.kind === "task_charge" || e.kind === "task_refund"))
          expect(settlements).toHaveLength(1)
        }
        const totals = yield* ledger.totals(partnerId)
        expect(totals.reservedMinor).toBe(0)
        expect(foldEntries(rows)).toEqual(totals)
      })
    )
  })
}

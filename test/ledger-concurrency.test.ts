/**
 * Parallel reservations against one account never take available below zero: exactly the
 * affordable number succeed, on embedded PGlite and, when DATABASE_URL is set (as in CI), on
 * PostgreSQL with a pool large enough for the transactions to really contend for the row lock.
 */
import { OutboxOnMemory, testPartner, testTask } from "@frank/core/testing"
import { TestDatabase } from "@frank/adapters"
import { Ids, Ledger } from "@frank/core"
import { expect, layer } from "@effect/vitest"
import { Effect, Either, Fiber, Layer } from "effect"
import { eventsOf, recordingOutbox } from "./contract/recordingOutbox.js"
import type { LedgerStore } from "@frank/core/stores"

type Engine = readonly [name: string, store: () => Layer.Layer<LedgerStore, unknown>]

// The list is fixed at module load: the PostgreSQL cases exist only when there is a server.
const engines: Array<Engine> = [["PGlite", TestDatabase.layerPgliteWithLedger]]
const url = process.env.DATABASE_URL
if (url !== undefined && url.length > 0)
  engines.push(["PostgreSQL", () => TestDatabase.layerPostgresWithLedger(url, { maxConnections: 20 })])

const FRANK = 100 // minor units

for (const [engine, store] of engines) {
  const EngineLayer = Ledger.Ledger.layer.pipe(
    Layer.provide(store()),
    Layer.provide(OutboxOnMemory),
    Layer.provide(Ids.Ids.layer)
  )

  // Live services: real time and real concurrency between the fibers and the database.
  layer(EngineLayer, { timeout: 120_000, excludeTestServices: true })(`parallel ledger writes on ${engine}`, (it) => {
    it.effect("50 parallel reservations of 30 ₣ on 1000 ₣: exactly 33 succeed, available never below zero", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        const partnerId = testPartner(`p_reserve_${engine}`)
        yield* ledger.credit(partnerId, { kind: "topup", amountMinor: 1000 * FRANK })

        // A reader samples the balance while the reservations race.
        let racing = true
        const observed: Array<number> = []
        const watcher = yield* Effect.fork(
          ledger.totals(partnerId).pipe(
            Effect.tap((t) => Effect.sync(() => observed.push(Ledger.availableMinor(t)))),
            Effect.repeat({ while: () => racing })
          )
        )
        const results = yield* Effect.all(
          Array.from({ length: 50 }, (_, i) =>
            Effect.either(ledger.reserve(partnerId, { taskId: testTask(`task-${i}`), amountMinor: 30 * FRANK }))
          ),
          { concurrency: "unbounded" }
        )
        racing = false
        yield* Fiber.join(watcher)

        const refused = results.filter(Either.isLeft)
        expect(results.filter(Either.isRight)).toHaveLength(Math.floor(1000 / 30))
        expect(refused).toHaveLength(50 - 33)
        for (const r of refused) expect(r.left).toBeInstanceOf(Ledger.InsufficientFunds)
        expect(observed.length).toBeGreaterThan(0)
        expect(Math.min(...observed)).toBeGreaterThanOrEqual(0)

        const totals = yield* ledger.totals(partnerId)
        expect(totals).toEqual({ totalMinor: 1000 * FRANK, usedMinor: 0, reservedMinor: 33 * 30 * FRANK })
        expect(Ledger.availableMinor(totals)).toBe(10 * FRANK)
        const rows = (yield* ledger.listEntries(partnerId, {}, 0, 1000)).items
        expect(Ledger.foldEntries(rows)).toEqual(totals)
        expect(rows.filter((e) => e.type === "reservation")).toHaveLength(33)
      })
    )

    it.effect("parallel confirms and refunds of the same holds settle each hold exactly once", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        const partnerId = testPartner(`p_settle_${engine}`)
        yield* ledger.credit(partnerId, { kind: "topup", amountMinor: 1000 * FRANK })
        yield* Effect.forEach(
          Array.from({ length: 10 }, (_, i) => i),
          (i) => ledger.reserve(partnerId, { taskId: testTask(`t${i}`), amountMinor: 50 * FRANK })
        )
        const attempts = Array.from({ length: 10 }, (_, i) => [
          Effect.either(ledger.confirm(partnerId, { taskId: testTask(`t${i}`), amountMinor: 40 * FRANK })),
          Effect.either(ledger.refund(partnerId, { taskId: testTask(`t${i}`) })),
          Effect.either(ledger.confirm(partnerId, { taskId: testTask(`t${i}`), amountMinor: 40 * FRANK }))
        ]).flat()
        yield* Effect.all(attempts, { concurrency: "unbounded" })

        const rows = (yield* ledger.listEntries(partnerId, {}, 0, 1000)).items
        for (let i = 0; i < 10; i++) {
          const settlements = rows.filter(
            (e) => e.taskId === `t${i}` && (e.kind === "task_charge" || e.kind === "task_refund")
          )
          expect(settlements).toHaveLength(1)
        }
        const totals = yield* ledger.totals(partnerId)
        expect(totals.reservedMinor).toBe(0)
        expect(Ledger.foldEntries(rows)).toEqual(totals)
      })
    )

    it.effect("parallel first movements of a new partner create its account once and lose nothing", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        const partnerId = testPartner(`p_first_${engine}`)
        yield* Effect.all(
          Array.from({ length: 20 }, (_, i) =>
            ledger.credit(partnerId, { kind: "topup", amountMinor: (i + 1) * FRANK, reference: `pay-${i}` })
          ),
          { concurrency: "unbounded" }
        )
        const totals = yield* ledger.totals(partnerId)
        expect(totals.totalMinor).toBe(((20 * 21) / 2) * FRANK)
        expect(Ledger.foldEntries((yield* ledger.listEntries(partnerId, {}, 0, 100)).items)).toEqual(totals)
      })
    )
  })
}

// Balance alerts under racing reservations: the outbox records what the movements wrote.
for (const [engine, store] of engines) {
  const AlertLayer = Ledger.Ledger.layer.pipe(
    Layer.provide(store()),
    Layer.provide(recordingOutbox),
    Layer.provide(Ids.Ids.layer)
  )
  layer(AlertLayer, { timeout: 120_000, excludeTestServices: true })(`parallel alert crossings on ${engine}`, (it) => {
    it.effect("40 parallel reservations crossing a 500 ₣ alert write exactly one triggered event", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        const partnerId = testPartner(`p_alert_${engine}_${Date.now()}`)
        yield* ledger.credit(partnerId, { kind: "topup", amountMinor: 1000 * FRANK })
        const alert = yield* ledger.createAlert(partnerId, 500 * FRANK)
        yield* Effect.all(
          Array.from({ length: 40 }, (_, i) =>
            Effect.either(ledger.reserve(partnerId, { taskId: testTask(`a${i}`), amountMinor: 30 * FRANK }))
          ),
          { concurrency: "unbounded" }
        )
        expect(eventsOf(partnerId, "billing.balance_alert")).toEqual([
          expect.objectContaining({ alertId: alert.id, state: "triggered" })
        ])
        expect((yield* ledger.alerts(partnerId))[0]).toMatchObject({ state: "triggered", crossings: 1 })
      })
    )
  })
}

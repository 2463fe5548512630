/**
 * The storage contract suite of the ledger: the same cases run against every LedgerStore
 * implementation (memory, PGlite, Postgres). A store is done when it passes them all.
 */
import { OutboxOnMemory, testPartner, testTask } from "@frank/core/testing"
import { Ids, Ledger } from "@frank/core"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Stream, TestClock } from "effect"
import { randomUUID as uuid } from "node:crypto"
import { type LedgerStore, TariffStore } from "@frank/core/stores"

const DAY = 86_400_000
const T0 = Date.UTC(2026, 10, 1, 10, 0, 0) // 2026-11-01T10:00Z, a fixed simulated time

/** A fresh partner per case keeps cases independent on a shared database. */
const newPartner = () => testPartner(`p_${uuid()}`)

const allEntries = (partnerId: Ids.PartnerId) =>
  Effect.flatMap(Ledger.Ledger, (l) => Effect.map(l.listEntries(partnerId, {}, 0, 10_000), (p) => p.items))

/** Totals kept by the store always equal the fold of its rows. */
const expectFolded = (partnerId: Ids.PartnerId) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger.Ledger
    const totals = yield* ledger.totals(partnerId)
    const rows = yield* allEntries(partnerId)
    expect(Ledger.foldEntries(rows)).toEqual(totals)
  })

export const ledgerStoreContract = (engine: string, storeLayer: Layer.Layer<LedgerStore | TariffStore, unknown>) => {
  const EngineLayer = Ledger.Ledger.layer.pipe(
    Layer.provideMerge(storeLayer),
    Layer.provideMerge(OutboxOnMemory),
    Layer.provideMerge(Ids.Ids.layer)
  )

  layer(EngineLayer, { timeout: 120_000 })(`LedgerStore contract on ${engine}`, (it) => {
    it.effect("credits raise total and available; balance view in franks", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        const r = yield* ledger.credit(p, { kind: "topup", amountMinor: 250_050, attribution: "company" })
        expect(r.replayed).toBe(false)
        expect(r.entry.type).toBe("topup")
        expect(r.entry.attribution).toBe("company")
        expect(r.entry.label).toBe("Пополнение баланса")
        yield* ledger.credit(p, { kind: "bonus", amountMinor: 1_000 })
        expect(yield* ledger.balance(p)).toEqual({
          total: 2510.5,
          used: 0,
          reserved: 0,
          available: 2510.5,
          isLow: false,
          lowBalanceThresholdFranks: 1000,
          expiring: []
        })
        yield* expectFolded(p)
      })
    )

    it.effect("a partner without movements has an empty, low balance", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        expect(yield* ledger.balance(newPartner())).toEqual({
          total: 0,
          used: 0,
          reserved: 0,
          available: 0,
          isLow: true,
          lowBalanceThresholdFranks: 1000,
          expiring: []
        })
      })
    )

    it.effect("reserve holds funds; a larger reservation fails and writes nothing", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        yield* ledger.credit(p, { kind: "topup", amountMinor: 10_000 })
        const held = yield* ledger.reserve(p, { taskId: testTask("t1"), amountMinor: 7_000, unitPriceMicros: 125_000 })
        expect(held.hold.status).toBe("open")
        expect(held.totals).toEqual({ totalMinor: 10_000, usedMinor: 0, reservedMinor: 7_000 })
        const err = yield* Effect.flip(ledger.reserve(p, { taskId: testTask("t2"), amountMinor: 3_001 }))
        expect(err).toBeInstanceOf(Ledger.InsufficientFunds)
        expect((err as Ledger.InsufficientFunds).code).toBe("INSUFFICIENT_FUNDS")
        expect((err as Ledger.InsufficientFunds).availableFranks).toBe(30)
        expect(yield* ledger.hold(p, testTask("t2"))).toBeUndefined()
        const rows = yield* allEntries(p)
        expect(rows.map((e) => e.type)).toEqual(["reservation", "topup"])
        expect(rows[0]!.unitPriceMicros).toBe(125_000)
        expect(rows[0]!.label).toBe("Резерв средств по задаче")
        yield* expectFolded(p)
      })
    )

    it.effect("repeating reserve for the same task returns the first reservation", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        yield* ledger.credit(p, { kind: "topup", amountMinor: 10_000 })
        const first = yield* ledger.reserve(p, { taskId: testTask("t"), amountMinor: 4_000 })
        const again = yield* ledger.reserve(p, { taskId: testTask("t"), amountMinor: 9_000 })
        expect(again.replayed).toBe(true)
        expect(again.hold).toEqual(first.hold)
        expect((yield* ledger.totals(p)).reservedMinor).toBe(4_000)
        expect((yield* allEntries(p)).filter((e) => e.type === "reservation")).toHaveLength(1)
      })
    )

    it.effect("confirm charges at most the reservation and releases the rest in the same write", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        yield* ledger.credit(p, { kind: "topup", amountMinor: 10_000 })
        yield* ledger.reserve(p, { taskId: testTask("t"), amountMinor: 5_000 })
        const done = yield* ledger.confirm(p, { taskId: testTask("t"), amountMinor: 3_250 })
        expect(done.hold).toMatchObject({ status: "confirmed", chargedMinor: 3_250, releasedMinor: 1_750 })
        expect(done.totals).toEqual({ totalMinor: 10_000, usedMinor: 3_250, reservedMinor: 0 })
        const rows = yield* allEntries(p)
        expect(rows.map((e) => [e.type, e.kind, e.amountMinor, e.taskId])).toEqual([
          ["refund", "task_release", 1_750, "t"],
          ["confirm", "task_charge", 3_250, "t"],
          ["reservation", "task_hold", 5_000, "t"],
          ["topup", "topup", 10_000, null]
        ])
        // Settled already: the same result, no new rows.
        const again = yield* ledger.confirm(p, { taskId: testTask("t"), amountMinor: 3_250 })
        expect(again.replayed).toBe(true)
        expect(again.hold).toEqual(done.hold)
        expect(yield* allEntries(p)).toHaveLength(4)
        yield* expectFolded(p)

        yield* ledger.reserve(p, { taskId: testTask("over"), amountMinor: 1_000 })
        const over = yield* ledger.confirm(p, { taskId: testTask("over"), amountMinor: 5_000 })
        expect(over.hold).toMatchObject({ chargedMinor: 1_000, releasedMinor: 0 })
        expect((yield* allEntries(p)).filter((e) => e.taskId === "over")).toHaveLength(2)
        yield* expectFolded(p)
      })
    )

    it.effect("refund releases the hold once; confirm after refund and refund after confirm are typed errors", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        yield* ledger.credit(p, { kind: "topup", amountMinor: 10_000 })
        yield* ledger.reserve(p, { taskId: testTask("a"), amountMinor: 2_000 })
        yield* ledger.reserve(p, { taskId: testTask("b"), amountMinor: 2_000 })
        const refunded = yield* ledger.refund(p, { taskId: testTask("a") })
        expect(refunded.hold).toMatchObject({ status: "refunded", releasedMinor: 2_000, chargedMinor: 0 })
        expect((yield* ledger.refund(p, { taskId: testTask("a") })).replayed).toBe(true)
        const e1 = yield* Effect.flip(ledger.confirm(p, { taskId: testTask("a"), amountMinor: 100 }))
        expect(e1).toBeInstanceOf(Ledger.HoldAlreadySettled)
        expect((e1 as Ledger.HoldAlreadySettled).holdStatus).toBe("refunded")
        yield* ledger.confirm(p, { taskId: testTask("b"), amountMinor: 2_000 })
        const e2 = yield* Effect.flip(ledger.refund(p, { taskId: testTask("b") }))
        expect(e2).toBeInstanceOf(Ledger.HoldAlreadySettled)
        expect((e2 as Ledger.HoldAlreadySettled).holdStatus).toBe("confirmed")
        const e3 = yield* Effect.flip(ledger.confirm(p, { taskId: testTask("nope"), amountMinor: 1 }))
        expect(e3).toBeInstanceOf(Ledger.HoldNotFound)
        expect(yield* ledger.totals(p)).toEqual({ totalMinor: 10_000, usedMinor: 2_000, reservedMinor: 0 })
        yield* expectFolded(p)
      })
    )

    it.effect("a hold keeps its expiresAt; an expired refund is its own row kind and moves the same money", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        const now = T0
        yield* TestClock.setTime(now)
        yield* ledger.credit(p, { kind: "topup", amountMinor: 10_000 })
        const byDefault = yield* ledger.reserve(p, { taskId: testTask("d"), amountMinor: 1_000 })
        expect(byDefault.hold.expiresAt).toBe(now + 86_400_000)
        const given = yield* ledger.reserve(p, { taskId: testTask("e"), amountMinor: 2_000, expiresAt: now + 5_000 })
        expect(yield* ledger.hold(p, testTask("e"))).toMatchObject({ status: "open", expiresAt: now + 5_000 })
        // A hold that would be born expired is refused and writes nothing.
        const bad = yield* Effect.flip(ledger.reserve(p, { taskId: testTask("f"), amountMinor: 1, expiresAt: now }))
        expect(bad._tag).toBe("InvalidAmount")
        expect(yield* ledger.hold(p, testTask("f"))).toBeUndefined()

        yield* TestClock.setTime(now + 5_000)
        const expired = yield* ledger.refund(p, { taskId: testTask("e"), reason: "expired" })
        expect(expired.hold).toMatchObject({
          status: "refunded",
          releasedMinor: 2_000,
          expiresAt: given.hold.expiresAt,
          settledAt: now + 5_000
        })
        const rows = (yield* allEntries(p)).filter((e) => e.taskId === "e").map((e) => `${e.type}:${e.kind}`)
        expect(rows).toEqual(["refund:task_hold_expired", "reservation:task_hold"])
        expect((yield* ledger.refund(p, { taskId: testTask("e"), reason: "expired" })).replayed).toBe(true)
        expect(yield* ledger.totals(p)).toEqual({ totalMinor: 10_000, usedMinor: 0, reservedMinor: 1_000 })
        yield* expectFolded(p)
      })
    )

    it.effect("references make credits idempotent; a reused reference with another amount conflicts", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        const a = yield* ledger.credit(p, { kind: "topup", amountMinor: 5_000, reference: "pay-1" })
        const b = yield* ledger.credit(p, { kind: "topup", amountMinor: 5_000, reference: "pay-1" })
        expect(b.replayed).toBe(true)
        expect(b.entry.id).toBe(a.entry.id)
        const c = yield* Effect.flip(ledger.credit(p, { kind: "topup", amountMinor: 6_000, reference: "pay-1" }))
        expect(c).toBeInstanceOf(Ledger.ReferenceConflict)
        // The same reference belongs to each partner separately.
        const q = newPartner()
        expect((yield* ledger.credit(q, { kind: "topup", amountMinor: 6_000, reference: "pay-1" })).replayed).toBe(
          false
        )
        expect((yield* ledger.totals(p)).totalMinor).toBe(5_000)
      })
    )

    it.effect("bonus reversal lowers total without spend; debit is spend; neither may overdraw", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        yield* ledger.credit(p, { kind: "bonus", amountMinor: 3_000 })
        yield* ledger.reverseBonus(p, { amountMinor: 1_000 })
        yield* ledger.debit(p, { amountMinor: 500 })
        expect(yield* ledger.totals(p)).toEqual({ totalMinor: 2_000, usedMinor: 500, reservedMinor: 0 })
        yield* ledger.reserve(p, { taskId: testTask("t"), amountMinor: 1_000 })
        expect(yield* Effect.flip(ledger.reverseBonus(p, { amountMinor: 501 }))).toBeInstanceOf(
          Ledger.InsufficientFunds
        )
        expect(yield* Effect.flip(ledger.debit(p, { amountMinor: 501 }))).toBeInstanceOf(Ledger.InsufficientFunds)
        expect(yield* Effect.flip(ledger.credit(p, { kind: "adjustment", amountMinor: -501 }))).toBeInstanceOf(
          Ledger.InsufficientFunds
        )
        yield* ledger.credit(p, { kind: "adjustment", amountMinor: -500 })
        expect(yield* ledger.balance(p)).toMatchObject({ total: 15, used: 5, reserved: 10, available: 0 })
        yield* expectFolded(p)
      })
    )

    it.effect("transactions list: newest first, filters by type, attribution and date range, paginates", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        yield* TestClock.setTime(T0)
        yield* ledger.credit(p, { kind: "topup", amountMinor: 10_000, attribution: "company" })
        yield* TestClock.setTime(T0 + DAY)
        yield* ledger.credit(p, { kind: "topup", amountMinor: 20_000, attribution: "personal" })
        yield* ledger.reserve(p, { taskId: testTask("t"), amountMinor: 1_000 })
        yield* TestClock.setTime(T0 + 2 * DAY)
        yield* ledger.confirm(p, { taskId: testTask("t"), amountMinor: 1_000 })

        const all = yield* ledger.listEntries(p, {}, 0, 20)
        expect(all.total).toBe(4)
        expect(all.items.map((e) => e.type)).toEqual(["confirm", "reservation", "topup", "topup"])
        const topups = yield* ledger.listEntries(p, { type: "topup" }, 0, 20)
        expect(topups.items.map((e) => e.amountMinor)).toEqual([20_000, 10_000])
        const company = yield* ledger.listEntries(p, { attribution: "company" }, 0, 20)
        expect(company.items.map((e) => e.amountMinor)).toEqual([10_000])
        const day2 = yield* ledger.listEntries(p, { fromMs: T0 + DAY, untilMs: T0 + 2 * DAY }, 0, 20)
        expect(day2.items.map((e) => e.type)).toEqual(["reservation", "topup"])
        const page2 = yield* ledger.listEntries(p, {}, 2, 2)
        expect(page2.total).toBe(4)
        expect(page2.items.map((e) => e.amountMinor)).toEqual([20_000, 10_000])
        expect(yield* ledger.countEntries(p, { type: "confirm" })).toBe(1)
      })
    )

    it.effect("tenancy: another partner sees nothing and its holds are its own", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        const a = newPartner()
        const b = newPartner()
        yield* ledger.credit(a, { kind: "topup", amountMinor: 10_000 })
        yield* ledger.reserve(a, { taskId: testTask("shared-task-id"), amountMinor: 1_000 })
        expect((yield* ledger.listEntries(b, {}, 0, 20)).total).toBe(0)
        expect(yield* ledger.hold(b, testTask("shared-task-id"))).toBeUndefined()
        expect(
          yield* Effect.flip(ledger.confirm(b, { taskId: testTask("shared-task-id"), amountMinor: 1 }))
        ).toBeInstanceOf(Ledger.HoldNotFound)
        expect(
          yield* Effect.flip(ledger.reserve(b, { taskId: testTask("shared-task-id"), amountMinor: 1 }))
        ).toBeInstanceOf(Ledger.InsufficientFunds)
        expect(yield* ledger.usageByDay(b, 0, T0 + 10 * DAY)).toEqual([])
      })
    )

    it.effect("daily usage per UTC day: confirms minus refunds not tied to a task", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        const midnight = Date.UTC(2026, 10, 2)
        yield* TestClock.setTime(midnight - 1)
        yield* ledger.credit(p, { kind: "topup", amountMinor: 100_000 })
        yield* ledger.reserve(p, { taskId: testTask("a"), amountMinor: 5_000 })
        yield* ledger.confirm(p, { taskId: testTask("a"), amountMinor: 4_000 }) // + released 1_000 (tied to task: ignored)
        yield* TestClock.setTime(midnight)
        yield* ledger.reserve(p, { taskId: testTask("b"), amountMinor: 3_000 })
        yield* ledger.confirm(p, { taskId: testTask("b"), amountMinor: 3_000 })
        yield* ledger.reserve(p, { taskId: testTask("c"), amountMinor: 3_000 })
        yield* ledger.refund(p, { taskId: testTask("c") }) // tied to a task: not counted
        yield* ledger.refundSpend(p, { amountMinor: 500 }) // not tied to a task: subtracts
        yield* ledger.debit(p, { amountMinor: 700 }) // legacy debit: not a confirm row
        const usage = yield* ledger.usageByDay(p, midnight - DAY, midnight + DAY)
        expect(usage).toEqual([
          { dayStartMs: midnight - DAY, spentMinor: 4_000 },
          { dayStartMs: midnight, spentMinor: 2_500 }
        ])
        expect(yield* ledger.usageByDay(p, midnight, midnight + DAY)).toEqual([
          { dayStartMs: midnight, spentMinor: 2_500 }
        ])
        yield* expectFolded(p)
      })
    )

    it.effect("streamed rows: newest first, bounded by maxRows", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        for (let i = 1; i <= 7; i++) {
          yield* TestClock.setTime(T0 + i)
          yield* ledger.credit(p, { kind: "bonus", amountMinor: i })
        }
        const rows = yield* Stream.runCollect(ledger.streamEntries(p, {}, 5))
        expect(Array.from(rows, (e) => e.amountMinor)).toEqual([7, 6, 5, 4, 3])
        const filtered = yield* Stream.runCollect(ledger.streamEntries(p, { fromMs: T0 + 6 }, 100))
        expect(Array.from(filtered, (e) => e.amountMinor)).toEqual([7, 6])
      })
    )

    it.effect("CSV export quotes commas, quotes and newlines and appends the truncation line", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        yield* ledger.credit(p, { kind: "adjustment", amountMinor: 1_234, note: 'счёт "А", строка\nвторая' })
        yield* ledger.credit(p, { kind: "bonus", amountMinor: 5 })
        yield* ledger.credit(p, { kind: "bonus", amountMinor: 6 })
        const csv = (max: number) =>
          Stream.runFold(
            Ledger.csvExportStream(ledger.streamEntries(p, {}, max), ledger.countEntries(p, {}), max),
            "",
            (a, b) => a + b
          )
        const full = yield* csv(10)
        const lines = full.split("\r\n")
        expect(lines[0]).toBe(
          "id,occurredAt,type,kind,amountFranks,unitPriceFranks,taskId,attribution,label,description"
        )
        expect(full).toContain(
          ',topup,adjustment,12.34,,,,Корректировка баланса,"Корректировка баланса: счёт ""А"", строка\nвторая"\r\n'
        )
        expect(full).not.toContain("# truncated")
        const cut = yield* csv(2)
        expect(cut.endsWith("# truncated: 3\r\n")).toBe(true)
        expect(cut.split("\r\n").filter((l) => l.includes(",bonus,"))).toHaveLength(2)
      })
    )

    it.effect("assigned plan defaults to base and can be changed", () =>
      Effect.gen(function* () {
        const store = yield* TariffStore
        const p = newPartner()
        expect(yield* store.assignedPlan(p)).toBe("base")
        yield* store.setAssignedPlan(p, "max")
        expect(yield* store.assignedPlan(p)).toBe("max")
        expect(yield* store.assignedPlan(newPartner())).toBe("base")
      })
    )
  })
}

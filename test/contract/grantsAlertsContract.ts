/**
 * The storage contract of expiring bonus grants and balance alerts (issue 32): the same cases on
 * every LedgerStore (memory, PGlite, PostgreSQL). Grants: the draw order, return on settlement,
 * expiry by the sweep and claw-back of what comes back after it. Alerts: state on creation, one
 * event per crossing, the limit and deletion.
 */
import { testPartner, testTask } from "@frank/core/testing"
import { Ids, Ledger } from "@frank/core"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { randomUUID as uuid } from "node:crypto"
import { eventsOf, recordingOutbox } from "./recordingOutbox.js"
import type { LedgerStore, Snapshot, TariffStore } from "@frank/core/stores"

const DAY = 86_400_000
const T0 = Date.UTC(2026, 10, 1, 10, 0, 0)
const F = 100 // minor units per frank

const newPartner = () => testPartner(uuid())

/** Σ grant remainders + money outside grants = available + reserved, with the outside money given. */
const expectGrantsAddUp = (partnerId: Ids.PartnerId, nonExpiringMinor: number) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger.Ledger
    const t = yield* ledger.totals(partnerId)
    const remaining = (yield* ledger.grants(partnerId)).reduce((s, g) => s + g.remainingMinor, 0)
    expect(remaining + nonExpiringMinor).toBe(t.totalMinor - t.usedMinor)
  })

const byId = (grants: Snapshot["grants"]) => new Map(grants.map((g) => [g.id, g]))

export const grantsAlertsContract = (engine: string, storeLayer: Layer.Layer<LedgerStore | TariffStore, unknown>) => {
  const EngineLayer = Layer.mergeAll(Ledger.GrantExpiry.layer({ sweepIntervalMs: 60_000, batchSize: 2 })).pipe(
    Layer.provideMerge(Ledger.Ledger.layer),
    Layer.provideMerge(storeLayer),
    Layer.provideMerge(recordingOutbox),
    Layer.provideMerge(Ids.Ids.layer)
  )

  layer(EngineLayer, { timeout: 120_000 })(`grants and alerts on ${engine}`, (it) => {
    it.effect("a bonus with expiresAt and priority becomes a grant; the balance lists its expiry", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        yield* ledger.credit(p, { kind: "topup", amountMinor: 100 * F })
        const r = yield* ledger.credit(p, {
          kind: "bonus",
          amountMinor: 30 * F,
          grant: { expiresAt: T0 + 7 * DAY, priority: 10 }
        })
        yield* TestClock.adjust(1)
        const plain = yield* ledger.credit(p, { kind: "bonus", amountMinor: 5 * F, grant: { expiresAt: T0 + DAY } })
        expect(r.grant?.id).toBe(r.entry.id)
        const grants = yield* ledger.grants(p)
        expect(grants.map((g) => [g.grantedMinor, g.remainingMinor, g.reservedMinor, g.priority, g.expiresAt])).toEqual(
          [
            [5 * F, 5 * F, 0, 50, T0 + DAY],
            [30 * F, 30 * F, 0, 10, T0 + 7 * DAY]
          ]
        )
        const balance = yield* ledger.balance(p)
        expect(balance.available).toBe(135)
        expect(balance.expiring).toEqual([
          { amountFranks: 5, expiresAt: new Date(T0 + DAY).toISOString(), grantId: plain.entry.id },
          { amountFranks: 30, expiresAt: new Date(T0 + 7 * DAY).toISOString(), grantId: r.entry.id }
        ])
        yield* expectGrantsAddUp(p, 100 * F)
      })
    )

    it.effect("the balance: zero without movements; the five soonest expiries with the account's totals", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const ledger = yield* Ledger.Ledger
        const fresh = yield* ledger.balance(newPartner())
        expect([fresh.total, fresh.used, fresh.reserved, fresh.available, fresh.expiring]).toEqual([0, 0, 0, 0, []])
        const p = newPartner()
        yield* ledger.credit(p, { kind: "topup", amountMinor: 50 * F })
        yield* ledger.credit(p, { kind: "bonus", amountMinor: 9 * F })
        const ids: Array<string> = []
        // Credited latest-expiring first, so the order shown is the store's, not the credits'.
        for (const day of [6, 5, 4, 3, 2, 1]) {
          yield* TestClock.adjust(1)
          const r = yield* ledger.credit(p, {
            kind: "bonus",
            amountMinor: day * F,
            grant: { expiresAt: T0 + day * DAY }
          })
          ids.unshift(r.entry.id)
        }
        const balance = yield* ledger.balance(p)
        const t = yield* ledger.totals(p)
        expect([balance.total, balance.used]).toEqual([t.totalMinor / F, t.usedMinor / F])
        expect(balance.available).toBe(50 + 9 + 21)
        expect(balance.expiring.map((e) => [e.grantId, e.expiresAt])).toEqual(
          [1, 2, 3, 4, 5].map((day, i) => [ids[i], new Date(T0 + day * DAY).toISOString()])
        )
      })
    )

    it.effect("grant terms are refused on other kinds, in the past and out of range; nothing is written", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        const refused = [
          ledger.credit(p, { kind: "adjustment", amountMinor: F, grant: { expiresAt: T0 + DAY } }),
          ledger.credit(p, { kind: "topup", amountMinor: F, grant: { priority: 1 } }),
          ledger.credit(p, { kind: "bonus", amountMinor: F, grant: { expiresAt: T0 } }),
          ledger.credit(p, { kind: "bonus", amountMinor: F, grant: { priority: 101 } }),
          ledger.credit(p, { kind: "bonus", amountMinor: F, grant: { priority: 2.5 } })
        ]
        for (const attempt of refused) {
          const e = yield* Effect.flip(attempt)
          expect(e._tag).toBe("InvalidGrant")
          expect((e as { code?: string }).code).toBe("GRANT_INVALID")
        }
        expect((yield* ledger.totals(p)).totalMinor).toBe(0)
        expect(yield* ledger.grants(p)).toEqual([])
      })
    )

    it.effect("a reservation draws by priority, then soonest expiry, then other money; a refund gives it back", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        yield* ledger.credit(p, { kind: "topup", amountMinor: 100 * F })
        const a = yield* ledger.credit(p, { kind: "bonus", amountMinor: 30 * F, grant: { expiresAt: T0 + 2 * DAY } })
        const b = yield* ledger.credit(p, { kind: "bonus", amountMinor: 20 * F, grant: { expiresAt: T0 + DAY } })
        const c = yield* ledger.credit(p, { kind: "bonus", amountMinor: 10 * F, grant: { priority: 10 } })
        const held = yield* ledger.reserve(p, { taskId: testTask("t1"), amountMinor: 45 * F })
        expect(held.hold.draws).toEqual([
          { grantId: c.entry.id, amountMinor: 10 * F },
          { grantId: b.entry.id, amountMinor: 20 * F },
          { grantId: a.entry.id, amountMinor: 15 * F }
        ])
        const stored = yield* ledger.hold(p, testTask("t1"))
        expect(stored?.draws).toEqual(held.hold.draws)
        let g = byId(yield* ledger.grants(p))
        expect([
          g.get(a.entry.id)!.reservedMinor,
          g.get(b.entry.id)!.reservedMinor,
          g.get(c.entry.id)!.reservedMinor
        ]).toEqual([15 * F, 20 * F, 10 * F])
        // Beyond the grants: 60 ₣ of grants, 15 ₣ left in them, 100 ₣ other money.
        const big = yield* ledger.reserve(p, { taskId: testTask("t2"), amountMinor: 50 * F })
        expect(big.hold.draws).toEqual([{ grantId: a.entry.id, amountMinor: 15 * F }])
        yield* ledger.refund(p, { taskId: testTask("t1") })
        g = byId(yield* ledger.grants(p))
        expect(g.get(c.entry.id)).toMatchObject({ remainingMinor: 10 * F, reservedMinor: 0 })
        expect(g.get(b.entry.id)).toMatchObject({ remainingMinor: 20 * F, reservedMinor: 0 })
        expect(g.get(a.entry.id)).toMatchObject({ remainingMinor: 30 * F, reservedMinor: 15 * F })
        yield* expectGrantsAddUp(p, 100 * F)
      })
    )

    it.effect("a confirm spends along the draws and gives the rest back to the grants", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        yield* ledger.credit(p, { kind: "topup", amountMinor: 100 * F })
        const a = yield* ledger.credit(p, { kind: "bonus", amountMinor: 30 * F, grant: { expiresAt: T0 + 2 * DAY } })
        const b = yield* ledger.credit(p, { kind: "bonus", amountMinor: 20 * F, grant: { expiresAt: T0 + DAY } })
        yield* ledger.reserve(p, { taskId: testTask("t"), amountMinor: 60 * F })
        yield* ledger.confirm(p, { taskId: testTask("t"), amountMinor: 25 * F })
        const g = byId(yield* ledger.grants(p))
        expect(g.get(b.entry.id)).toMatchObject({ remainingMinor: 0, reservedMinor: 0 })
        expect(g.get(a.entry.id)).toMatchObject({ remainingMinor: 25 * F, reservedMinor: 0 })
        expect(yield* ledger.totals(p)).toEqual({ totalMinor: 150 * F, usedMinor: 25 * F, reservedMinor: 0 })
        yield* expectGrantsAddUp(p, 100 * F)
      })
    )

    it.effect("at expiresAt the sweep claws back the unreserved remainder; a later refund claws back the rest", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const ledger = yield* Ledger.Ledger
        const expiry = yield* Ledger.GrantExpiry
        const p = newPartner()
        yield* ledger.credit(p, { kind: "topup", amountMinor: 10 * F })
        const g = yield* ledger.credit(p, { kind: "bonus", amountMinor: 30 * F, grant: { expiresAt: T0 + DAY } })
        yield* ledger.reserve(p, { taskId: testTask("t"), amountMinor: 12 * F })
        yield* TestClock.setTime(T0 + DAY - 1)
        yield* expiry.sweep
        expect((yield* ledger.totals(p)).totalMinor).toBe(40 * F)
        yield* TestClock.setTime(T0 + DAY)
        yield* expiry.sweep
        expect(yield* ledger.totals(p)).toEqual({ totalMinor: 22 * F, usedMinor: 0, reservedMinor: 12 * F })
        const rows = (yield* ledger.listEntries(p, {}, 0, 10)).items
        expect(rows[0]).toMatchObject({ type: "bonus_reversal", kind: "bonus_expired", amountMinor: 18 * F })
        expect(eventsOf(p, "billing.bonus_expired")).toEqual([
          { grantId: g.entry.id, amountFranks: 18, expiredAt: new Date(T0 + DAY).toISOString() }
        ])
        expect((yield* ledger.balance(p)).expiring).toEqual([])
        // A second sweep changes nothing.
        yield* expiry.sweep
        expect((yield* ledger.totals(p)).totalMinor).toBe(22 * F)
        yield* ledger.refund(p, { taskId: testTask("t") })
        expect(yield* ledger.totals(p)).toEqual({ totalMinor: 10 * F, usedMinor: 0, reservedMinor: 0 })
        expect(yield* ledger.grants(p)).toMatchObject([{ remainingMinor: 0, reservedMinor: 0, expiredAt: T0 + DAY }])
        expect(eventsOf(p, "billing.bonus_expired")).toHaveLength(2)
        expect(eventsOf(p, "billing.bonus_expired")[1]).toMatchObject({ grantId: g.entry.id, amountFranks: 12 })
        yield* expectGrantsAddUp(p, 10 * F)
        const all = (yield* ledger.listEntries(p, {}, 0, 100)).items
        expect(Ledger.foldEntries(all)).toEqual(yield* ledger.totals(p))
      })
    )

    it.effect("the sweep expires every due grant in batches and leaves the others", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const ledger = yield* Ledger.Ledger
        const expiry = yield* Ledger.GrantExpiry
        const partners = [newPartner(), newPartner(), newPartner()]
        for (const [i, p] of partners.entries()) {
          yield* ledger.credit(p, { kind: "bonus", amountMinor: (i + 1) * F, grant: { expiresAt: T0 + DAY + i } })
          yield* ledger.credit(p, { kind: "bonus", amountMinor: F, grant: { expiresAt: T0 + DAY + i } })
          yield* ledger.credit(p, { kind: "bonus", amountMinor: 7 * F, grant: { expiresAt: T0 + 30 * DAY } })
        }
        expect(yield* expiry.nextSweepAt).toBeLessThanOrEqual(T0 + DAY)
        yield* TestClock.setTime(T0 + 2 * DAY)
        // Batches of two: six due grants take several reads.
        expect(yield* expiry.sweep).toBeGreaterThanOrEqual(6)
        for (const p of partners) expect((yield* ledger.totals(p)).totalMinor).toBe(7 * F)
        for (const p of partners) expect(eventsOf(p, "billing.bonus_expired")).toHaveLength(2)
      })
    )

    it.effect(
      "outflows keep grants within the balance: a debit spends grants first, a reversal other money first",
      () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(T0)
          const ledger = yield* Ledger.Ledger
          const p = newPartner()
          yield* ledger.credit(p, { kind: "topup", amountMinor: 10 * F })
          const g = yield* ledger.credit(p, { kind: "bonus", amountMinor: 20 * F, grant: { expiresAt: T0 + DAY } })
          yield* ledger.debit(p, { amountMinor: 5 * F })
          expect((yield* ledger.grants(p))[0]!.remainingMinor).toBe(15 * F)
          yield* ledger.reverseBonus(p, { amountMinor: 12 * F })
          expect((yield* ledger.grants(p))[0]!.remainingMinor).toBe(13 * F)
          yield* expectGrantsAddUp(p, 0)
          expect(g.grant?.expiresAt).toBe(T0 + DAY)
        })
    )

    it.effect("an alert starts in the state the balance puts it in and fires once per crossing", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        yield* ledger.credit(p, { kind: "topup", amountMinor: 100 * F })
        const low = yield* ledger.createAlert(p, 50 * F)
        const high = yield* ledger.createAlert(p, 200 * F)
        expect([low.state, high.state]).toEqual(["ok", "triggered"])
        yield* ledger.reserve(p, { taskId: testTask("a"), amountMinor: 40 * F })
        expect(eventsOf(p, "billing.balance_alert")).toEqual([])
        yield* ledger.reserve(p, { taskId: testTask("b"), amountMinor: 20 * F })
        yield* ledger.reserve(p, { taskId: testTask("c"), amountMinor: 10 * F })
        expect(eventsOf(p, "billing.balance_alert")).toEqual([
          { alertId: low.id, thresholdFranks: 50, state: "triggered", availableFranks: 40 }
        ])
        yield* ledger.refund(p, { taskId: testTask("b") })
        yield* ledger.refund(p, { taskId: testTask("c") })
        expect(eventsOf(p, "billing.balance_alert")).toEqual([
          { alertId: low.id, thresholdFranks: 50, state: "triggered", availableFranks: 40 },
          { alertId: low.id, thresholdFranks: 50, state: "resolved", availableFranks: 50 }
        ])
        yield* ledger.credit(p, { kind: "topup", amountMinor: 200 * F })
        expect(eventsOf(p, "billing.balance_alert").at(-1)).toEqual({
          alertId: high.id,
          thresholdFranks: 200,
          state: "resolved",
          availableFranks: 260
        })
        expect((yield* ledger.alerts(p)).map((a) => a.state)).toEqual(["ok", "ok"])
      })
    )

    it.effect("at most five alerts; thresholds in 1..10,000,000 ₣; delete removes one, twice is not found", () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(T0)
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        for (const bad of [0, 99, 10_000_000 * F + 1, 150.5])
          expect((yield* Effect.flip(ledger.createAlert(p, bad)))._tag).toBe("InvalidAlertThreshold")
        const made = []
        for (let i = 1; i <= 5; i++) {
          made.push(yield* ledger.createAlert(p, i * 1000 * F))
          yield* TestClock.adjust(1)
        }
        expect((yield* Effect.flip(ledger.createAlert(p, 42 * F)))._tag).toBe("AlertLimitReached")
        expect((yield* ledger.alerts(p)).map((a) => a.thresholdMinor)).toEqual(made.map((a) => a.thresholdMinor))
        yield* ledger.deleteAlert(p, made[0]!.id)
        expect((yield* Effect.flip(ledger.deleteAlert(p, made[0]!.id)))._tag).toBe("AlertNotFound")
        expect((yield* Effect.flip(ledger.deleteAlert(newPartner(), made[1]!.id)))._tag).toBe("AlertNotFound")
        expect(yield* ledger.alerts(p)).toHaveLength(4)
        yield* ledger.createAlert(p, 42 * F)
      })
    )
  })
}

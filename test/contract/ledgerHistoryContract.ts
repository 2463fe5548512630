/**
 * The ledger's reads against a ledger of every movement kind, on every LedgerStore (memory,
 * PGlite, PostgreSQL): each filter's total, every page at several sizes, the export stream and
 * daily usage agree with the full list filtered here. The SQL stores answer these from numbered
 * rows and kept counts (migration 0027) instead of counting and skipping; this suite holds them
 * to the same answers as the memory store's plain filtering.
 */
import { OutboxOnMemory, testPartner, testTask } from "@frank/core/testing"
import { Ids, Ledger } from "@frank/core"
import { expect, layer } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream, TestClock } from "effect"
import { randomUUID as uuid } from "node:crypto"
import type { LedgerStore, TariffStore } from "@frank/core/stores"

const DAY = 86_400_000
const HOUR = 3_600_000
const T0 = Date.UTC(2026, 10, 1, 10, 0, 0)

const newPartner = () => testPartner(`p_${uuid()}`)

const matches = (e: Ledger.LedgerEntry, f: Ledger.EntryFilter) =>
  (f.type === undefined || e.type === f.type) &&
  (f.attribution === undefined || e.attribution === f.attribution) &&
  (f.fromMs === undefined || e.occurredAt >= f.fromMs) &&
  (f.untilMs === undefined || e.occurredAt < f.untilMs)

/** Every movement kind over three days: top-ups of both payers, grants, holds settled every way, expiries. */
const everyMovement = (p: Ids.PartnerId) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger.Ledger
    yield* TestClock.setTime(T0)
    yield* ledger.credit(p, { kind: "topup", amountMinor: 50_000, attribution: "company" })
    const expiring = yield* ledger.credit(p, { kind: "bonus", amountMinor: 20_000, grant: { expiresAt: T0 + DAY } })
    yield* ledger.reserve(p, { taskId: testTask("a"), amountMinor: 5_000 })
    yield* ledger.confirm(p, { taskId: testTask("a"), amountMinor: 4_000 })
    yield* ledger.reserve(p, { taskId: testTask("e"), amountMinor: 2_000, expiresAt: T0 + HOUR })
    yield* TestClock.setTime(T0 + 2 * HOUR)
    yield* ledger.refund(p, { taskId: testTask("e"), reason: "expired" })
    yield* TestClock.setTime(T0 + DAY + HOUR)
    yield* ledger.expireGrant(p, expiring.entry.id)
    yield* ledger.credit(p, { kind: "topup", amountMinor: 20_000, attribution: "personal" })
    yield* ledger.credit(p, { kind: "bonus", amountMinor: 1_000 })
    yield* ledger.reverseBonus(p, { amountMinor: 400 })
    yield* ledger.reserve(p, { taskId: testTask("b"), amountMinor: 3_000 })
    yield* ledger.refund(p, { taskId: testTask("b") })
    yield* TestClock.setTime(T0 + 2 * DAY + 3 * HOUR)
    yield* ledger.reserve(p, { taskId: testTask("c"), amountMinor: 1_500 })
    yield* ledger.confirm(p, { taskId: testTask("c"), amountMinor: 1_500 })
    yield* ledger.reserve(p, { taskId: testTask("z"), amountMinor: 10 })
    yield* ledger.confirm(p, { taskId: testTask("z"), amountMinor: 0 })
    yield* ledger.refundSpend(p, { amountMinor: 700 })
    yield* ledger.debit(p, { amountMinor: 300 })
    yield* ledger.credit(p, { kind: "adjustment", amountMinor: -200 })
  })

const FILTERS: ReadonlyArray<Ledger.EntryFilter> = [
  {},
  ...Ledger.TransactionType.literals.map((type) => ({ type })),
  { attribution: "company" },
  { attribution: "personal", type: "topup" },
  { fromMs: T0 + DAY },
  { untilMs: T0 + DAY },
  { fromMs: T0 + DAY, untilMs: T0 + 2 * DAY },
  { fromMs: T0 + HOUR, untilMs: T0 + 2 * DAY + 3 * HOUR + 1 },
  { fromMs: T0 + 3 * DAY },
  { untilMs: T0 - DAY },
  { type: "confirm", fromMs: T0 + DAY },
  { type: "refund", untilMs: T0 + 2 * DAY },
  { type: "reservation", fromMs: T0 + 2 * HOUR, untilMs: T0 + 2 * DAY }
]

export const ledgerHistoryContract = (engine: string, storeLayer: Layer.Layer<LedgerStore | TariffStore, unknown>) => {
  const EngineLayer = Ledger.Ledger.layer.pipe(
    Layer.provideMerge(storeLayer),
    Layer.provideMerge(OutboxOnMemory),
    Layer.provideMerge(Ids.Ids.layer)
  )

  layer(EngineLayer, { timeout: 120_000 })(`Ledger reads over a history on ${engine}`, (it) => {
    it.effect("every filter's total, pages, stream and count agree with the full list, across movement kinds", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        yield* everyMovement(p)
        const full = (yield* ledger.listEntries(p, {}, 0, 1_000)).items
        expect(full).toHaveLength(21)
        expect(Ledger.foldEntries(full)).toEqual(yield* ledger.totals(p))
        // Newest first: times never rise down the list.
        expect(full.every((e, i) => i === 0 || full[i - 1]!.occurredAt >= e.occurredAt)).toBe(true)
        expect(full.map((e) => e.kind).filter((k) => k.endsWith("_expired"))).toEqual([
          "bonus_expired",
          "task_hold_expired"
        ])

        for (const filter of FILTERS) {
          const expected = full.filter((e) => matches(e, filter))
          const label = JSON.stringify(filter)
          expect(yield* ledger.countEntries(p, filter), label).toBe(expected.length)
          for (const limit of [1, 3, 7]) {
            for (let offset = 0; offset <= expected.length + limit; offset += limit) {
              const page = yield* ledger.listEntries(p, filter, offset, limit)
              expect(page.total, `${label} @${offset}`).toBe(expected.length)
              expect(page.items, `${label} @${offset}/${limit}`).toEqual(expected.slice(offset, offset + limit))
            }
          }
          for (const max of [1, 5, 1_000]) {
            const streamed = Chunk.toArray(yield* Stream.runCollect(ledger.streamEntries(p, filter, max)))
            expect(streamed, `${label} stream ${max}`).toEqual(expected.slice(0, max))
          }
        }
      })
    )

    it.effect("daily usage over whole days and over part days equals the fold of the rows", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        yield* everyMovement(p)
        const full = (yield* ledger.listEntries(p, {}, 0, 1_000)).items
        const day0 = Ledger.dayStart(T0)
        const ranges: ReadonlyArray<readonly [number, number]> = [
          [day0 - DAY, day0 + 4 * DAY],
          [day0 + DAY, day0 + 3 * DAY],
          [T0 + HOUR, T0 + 2 * DAY + 3 * HOUR + 1],
          [T0 - HOUR, T0 + HOUR],
          [day0 + 2 * DAY, T0 + 2 * DAY + 3 * HOUR],
          [day0 + 5 * DAY, day0 + 9 * DAY]
        ]
        for (const [from, until] of ranges)
          expect(yield* ledger.usageByDay(p, from, until), `${from}..${until}`).toEqual(
            Ledger.sumUsageByDay(full, from, until)
          )
      })
    )

    it.effect("a movement whose clock reads before the newest row takes that row's time, so lists stay in order", () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger.Ledger
        const p = newPartner()
        yield* TestClock.setTime(T0 + DAY)
        yield* ledger.credit(p, { kind: "bonus", amountMinor: 1 })
        yield* TestClock.setTime(T0)
        const late = yield* ledger.credit(p, { kind: "bonus", amountMinor: 2 })
        expect(late.entry.occurredAt).toBe(T0 + DAY)
        const listed = yield* ledger.listEntries(p, {}, 0, 10)
        expect(listed.items.map((e) => [e.amountMinor, e.occurredAt])).toEqual([
          [2, T0 + DAY],
          [1, T0 + DAY]
        ])
        expect((yield* ledger.listEntries(p, { untilMs: T0 + DAY }, 0, 10)).total).toBe(0)
        expect((yield* ledger.listEntries(p, { fromMs: T0 + DAY }, 1, 10)).items.map((e) => e.amountMinor)).toEqual([1])
      })
    )
  })
}

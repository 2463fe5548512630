/**
 * Property tests of the ledger rules: random command sequences run through the pure rules and a
 * minimal in-test store; after every step the invariants must hold.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import fc from "fast-check"
import { type AccountTotals, availableMinor, emptyTotals, foldEntries } from "../src/ledger/Account.js"
import { balanceView } from "../src/ledger/internal/Balance.js"
import type { LedgerEntry, NewLedgerEntry } from "../src/ledger/Entry.js"
import type { Hold } from "../src/ledger/Hold.js"
import * as LedgerRules from "../src/ledger/rules.js"
import { testPartner, testTask } from "@frank/core/testing"

type Command =
  | { op: "credit"; kind: "topup" | "bonus" | "adjustment"; amount: number; reference?: string }
  | { op: "reverseBonus" | "debit" | "refundSpend"; amount: number }
  | { op: "reserve"; task: number; amount: number }
  | { op: "confirm"; task: number; amount: number }
  | { op: "refund"; task: number }

const amount = fc.integer({ min: 1, max: 200_000 })
const task = fc.integer({ min: 0, max: 6 })
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ op: fc.constant("credit" as const), kind: fc.constantFrom("topup" as const, "bonus" as const), amount }),
  fc.record({
    op: fc.constant("credit" as const),
    kind: fc.constant("adjustment" as const),
    amount: fc.integer({ min: -50_000, max: 50_000 }).filter((n) => n !== 0)
  }),
  fc.record({
    op: fc.constant("credit" as const),
    kind: fc.constant("topup" as const),
    amount,
    reference: fc.constantFrom("r1", "r2")
  }),
  fc.record({ op: fc.constantFrom("reverseBonus" as const, "debit" as const, "refundSpend" as const), amount }),
  fc.record({ op: fc.constant("reserve" as const), task, amount }),
  fc.record({ op: fc.constant("confirm" as const), task, amount: fc.integer({ min: 0, max: 250_000 }) }),
  fc.record({ op: fc.constant("refund" as const), task })
)

/** Applies commands the way a store does: the rule decides, the decision is written whole. */
const simulate = (commands: ReadonlyArray<Command>) => {
  let totals: AccountTotals = emptyTotals
  const entries: LedgerEntry[] = []
  const holds = new Map<string, Hold>()
  let seq = 0
  const settlements = new Map<string, number>()
  for (const [i, c] of commands.entries()) {
    const taskId = "task" in c ? `t${c.task}` : undefined
    const reference = c.op === "credit" ? c.reference : undefined
    const snap: LedgerRules.Snapshot = {
      partnerId: testPartner("p"),
      totals,
      hold: taskId === undefined ? undefined : holds.get(taskId),
      referenced: reference === undefined ? undefined : entries.find((e) => e.reference === reference),
      grants: []
    }
    const ctx: LedgerRules.RuleContext = { now: i, entryIds: [`e${i}a`, `e${i}b`, `e${i}c`] }
    const decided: Either.Either<LedgerRules.Decision<unknown>, unknown> = c.op === "credit"
      ? LedgerRules.credit(snap, { kind: c.kind, amountMinor: c.amount, reference }, ctx)
      : c.op === "reverseBonus"
        ? LedgerRules.reverseBonus(snap, { amountMinor: c.amount }, ctx)
        : c.op === "debit"
          ? LedgerRules.debit(snap, { amountMinor: c.amount }, ctx)
          : c.op === "refundSpend"
            ? LedgerRules.refundSpend(snap, { amountMinor: c.amount }, ctx)
            : c.op === "reserve"
              ? LedgerRules.reserve(snap, { taskId: testTask(taskId!), amountMinor: c.amount }, ctx)
              : c.op === "confirm"
                ? LedgerRules.confirm(snap, { taskId: testTask(taskId!), amountMinor: c.amount }, ctx)
                : LedgerRules.refund(snap, { taskId: testTask(taskId!) }, ctx)
    if (Either.isLeft(decided)) continue
    const d = decided.right
    for (const e of d.entries as NewLedgerEntry[]) {
      entries.push({ ...e, seq: ++seq })
      if ((e.type === "confirm" || (e.type === "refund" && e.kind === "task_refund")) && e.taskId !== null)
        settlements.set(e.taskId, (settlements.get(e.taskId) ?? 0) + 1)
    }
    if (d.hold !== undefined) holds.set(d.hold.taskId, d.hold)
    totals = d.totals
    // Invariants after every step.
    expect(totals).toEqual(foldEntries(entries))
    expect(availableMinor(totals)).toBeGreaterThanOrEqual(0)
    expect(totals.reservedMinor).toBe(
      [...holds.values()].filter((h) => h.status === "open").reduce((s, h) => s + h.reservedMinor, 0)
    )
  }
  return { totals, entries, holds, settlements }
}

describe("ledger rules (property)", () => {
  it("balance equals the fold of rows; total − used − reserved = available ≥ 0", () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 80 }), (commands) => {
        const { totals, entries } = simulate(commands)
        const view = balanceView(totals)
        expect(view.available).toBe(Math.max(0, (totals.totalMinor - totals.usedMinor - totals.reservedMinor) / 100))
        expect(foldEntries(entries)).toEqual(totals)
      }),
      { numRuns: 400 }
    )
  })

  it("no hold resolves twice, and a settled hold accounts for its whole reservation", () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 80 }), (commands) => {
        const { holds, settlements, entries } = simulate(commands)
        for (const count of settlements.values()) expect(count).toBe(1)
        for (const h of holds.values()) {
          const own = entries.filter((e) => e.taskId === h.taskId)
          expect(own.filter((e) => e.type === "reservation")).toHaveLength(1)
          if (h.status !== "open") expect(h.chargedMinor + h.releasedMinor).toBe(h.reservedMinor)
          const released = own.filter((e) => e.type === "refund").reduce((s, e) => s + e.amountMinor, 0)
          expect(released).toBe(h.releasedMinor)
        }
      }),
      { numRuns: 400 }
    )
  })

  it("money is never fractional below 0.01 ₣", () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 60 }), (commands) => {
        const { totals, entries } = simulate(commands)
        for (const e of entries) expect(Number.isSafeInteger(e.amountMinor)).toBe(true)
        const view = balanceView(totals)
        for (const v of [view.total, view.used, view.reserved, view.available]) {
          expect(Number.isInteger(Math.round(v * 100))).toBe(true)
          expect(Math.abs(v * 100 - Math.round(v * 100))).toBeLessThan(1e-6)
          expect(String(v)).toMatch(/^-?\d+(\.\d{1,2})?$/)
        }
      }),
      { numRuns: 300 }
    )
  })
})

describe("ledger rules (examples)", () => {
  const snap = (totals: AccountTotals, hold?: Hold): LedgerRules.Snapshot => ({
    partnerId: testPartner("p"),
    totals,
    hold,
    referenced: undefined,
    grants: []
  })
  const ctx: LedgerRules.RuleContext = { now: 0, entryIds: ["a", "b", "c"] }

  it("rejects non-integer, zero and oversized amounts", () => {
    for (const amountMinor of [0.5, 0, -1, Number.NaN, LedgerRules.MAX_MOVEMENT_MINOR + 1]) {
      const r = LedgerRules.reserve(
        snap({ totalMinor: 10, usedMinor: 0, reservedMinor: 0 }),
        { taskId: testTask("t"), amountMinor },
        ctx
      )
      expect(Either.isLeft(r) && r.left._tag).toBe("InvalidAmount")
    }
  })

  it("a reservation of exactly the available amount succeeds", () => {
    const r = LedgerRules.reserve(
      snap({ totalMinor: 500, usedMinor: 100, reservedMinor: 150 }),
      { taskId: testTask("t"), amountMinor: 250 },
      ctx
    )
    expect(Either.isRight(r) && r.right.totals).toEqual({ totalMinor: 500, usedMinor: 100, reservedMinor: 400 })
  })
})

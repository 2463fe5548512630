/**
 * The payment status machine, every (current, reported) pair, plus a property: whatever the
 * acquirer sends, in whatever order and however often, the ledger is credited at most once and a
 * final status never changes.
 */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import type { PaymentStatus } from "../src/payments/Payment.js"
import { creditsLedger, paymentTransition } from "../src/payments/PaymentState.js"

const ALL: ReadonlyArray<PaymentStatus> = ["pending", "authorized", "confirmed", "canceled", "rejected", "failed"]
const FINAL: ReadonlyArray<PaymentStatus> = ["confirmed", "canceled", "rejected", "failed"]

/** Expected outcome per pair: M moved, R repeated, S stale, X refused. */
const TABLE: Record<PaymentStatus, Record<PaymentStatus, "M" | "R" | "S" | "X">> = {
  pending: { pending: "R", authorized: "M", confirmed: "M", canceled: "M", rejected: "M", failed: "M" },
  authorized: { pending: "S", authorized: "R", confirmed: "M", canceled: "M", rejected: "M", failed: "M" },
  confirmed: { pending: "S", authorized: "S", confirmed: "R", canceled: "X", rejected: "X", failed: "X" },
  canceled: { pending: "S", authorized: "S", confirmed: "X", canceled: "R", rejected: "X", failed: "X" },
  rejected: { pending: "S", authorized: "S", confirmed: "X", canceled: "X", rejected: "R", failed: "X" },
  failed: { pending: "S", authorized: "S", confirmed: "X", canceled: "X", rejected: "X", failed: "R" }
}

describe("payment state machine", () => {
  for (const current of ALL)
    for (const reported of ALL)
      it(`${current} + ${reported} → ${TABLE[current][reported]}`, () => {
        const t = paymentTransition(current, reported)
        switch (TABLE[current][reported]) {
          case "M":
            expect(t).toEqual({ _tag: "Moved", from: current, to: reported })
            break
          case "R":
            expect(t).toEqual({ _tag: "Unchanged", status: current, reason: "repeated" })
            break
          case "S":
            expect(t).toEqual({ _tag: "Unchanged", status: current, reason: "stale" })
            break
          case "X":
            expect(t).toEqual({ _tag: "Refused", status: current, reported, reason: "final" })
            break
        }
        expect(creditsLedger(t)).toBe(t._tag === "Moved" && reported === "confirmed")
      })

  it("a confirmation after a cancel is refused and credits nothing", () => {
    const t = paymentTransition("canceled", "confirmed")
    expect(t._tag).toBe("Refused")
    expect(creditsLedger(t)).toBe(false)
  })

  it("any sequence of notifications credits at most once, only when it ends confirmed, and never leaves a final status", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ALL), { maxLength: 30 }), (reports) => {
        let status: PaymentStatus = "pending"
        let credited = 0
        let finalSeen: PaymentStatus | undefined
        for (const reported of reports) {
          const t = paymentTransition(status, reported)
          if (creditsLedger(t)) credited++
          if (t._tag === "Moved") status = t.to
          if (finalSeen !== undefined) expect(status).toBe(finalSeen)
          if (FINAL.includes(status)) finalSeen = status
        }
        expect(credited).toBeLessThanOrEqual(1)
        expect(credited === 1).toBe(status === "confirmed")
      })
    )
  })
})

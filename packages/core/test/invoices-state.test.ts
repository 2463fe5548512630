import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { type InvoiceStatus, isPayable, isTerminal, transition } from "../src/invoices/internal/InvoiceState.js"

const statuses: ReadonlyArray<InvoiceStatus> = ["issued", "paid", "canceled", "expired"]

describe("legal invoice state machine", () => {
  it("every (status, report) pair: the legal moves and nothing else", () => {
    const table = Object.fromEntries(
      statuses.map((from) => [
        from,
        Object.fromEntries(
          statuses.map((reported) => {
            const t = transition(from, reported)
            return [reported, t._tag === "Moved" ? t.to : t._tag === "Unchanged" ? "=" : `refused:${t.reason}`]
          })
        )
      ])
    )
    expect(table).toEqual({
      issued: { issued: "=", paid: "paid", canceled: "canceled", expired: "expired" },
      expired: { issued: "refused:backwards", paid: "paid", canceled: "canceled", expired: "=" },
      paid: { issued: "refused:terminal", paid: "=", canceled: "refused:terminal", expired: "refused:terminal" },
      canceled: { issued: "refused:terminal", paid: "refused:terminal", canceled: "=", expired: "refused:terminal" }
    })
  })

  it("terminal and payable statuses", () => {
    expect(statuses.filter(isTerminal)).toEqual(["paid", "canceled"])
    expect(statuses.filter(isPayable)).toEqual(["issued", "expired"])
  })

  it("any sequence of reports, duplicated and reordered: at most one move into paid, never out of a terminal status", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...statuses), { maxLength: 30 }), (reports) => {
        let status: InvoiceStatus = "issued"
        let movesToPaid = 0
        for (const reported of reports) {
          const t = transition(status, reported)
          if (t._tag !== "Moved") continue
          expect(isTerminal(status)).toBe(false)
          if (t.to === "paid") movesToPaid++
          status = t.to
        }
        expect(movesToPaid).toBeLessThanOrEqual(1)
        // Paid exactly when some report said paid while it was still payable.
        if (reports.includes("paid") && movesToPaid === 0) expect(status).toBe("canceled")
      })
    )
  })
})

import { describe, expect, it } from "vitest"
import { highestHeld, notHeldBecause, parseRates, percentile, type StepOutcome } from "../bench/sustained/rules.js"
import { statementPart } from "../bench/sustained/statements.js"

const step = (over: Partial<StepOutcome> = {}): StepOutcome => ({
  target: 100,
  achieved: 100,
  emitted: 3000,
  delivered: 3000,
  failed: 0,
  p99Ms: 40,
  backlogAtEnd: 3,
  ...over
})

describe("bench/sustained rules", () => {
  it("takes percentiles by the nearest rank", () => {
    const xs = Array.from({ length: 100 }, (_, i) => 100 - i)
    expect(percentile(xs, 50)).toBe(50)
    expect(percentile(xs, 99)).toBe(99)
    expect(percentile(xs, 100)).toBe(100)
    expect(percentile([7], 99)).toBe(7)
    expect(percentile([], 50)).toBeNaN()
  })

  it("holds a step only when every condition is met", () => {
    expect(notHeldBecause(step())).toEqual([])
    expect(notHeldBecause(step({ achieved: 95 }))).toEqual([])
    expect(notHeldBecause(step({ achieved: 94.9 }))).toHaveLength(1)
    expect(notHeldBecause(step({ failed: 1 }))).toHaveLength(1)
    expect(notHeldBecause(step({ delivered: 2999 }))).toHaveLength(1)
    expect(notHeldBecause(step({ p99Ms: 1000 }))).toEqual([])
    expect(notHeldBecause(step({ p99Ms: 1001 }))).toHaveLength(1)
    expect(notHeldBecause(step({ p99Ms: Number.NaN }))).toHaveLength(1)
    expect(notHeldBecause(step({ backlogAtEnd: 101 }))).toHaveLength(1)
    expect(notHeldBecause(step({ achieved: 10, p99Ms: 5000 }))).toHaveLength(2)
  })

  it("answers the last rate of the leading run of held steps", () => {
    const held = [
      step({ target: 50 }),
      step({ target: 100 }),
      step({ target: 200, p99Ms: 2000 }),
      step({ target: 400 })
    ]
    expect(highestHeld(held)).toBe(100)
    expect(highestHeld([step({ target: 50, failed: 2 })])).toBe(0)
    expect(highestHeld([])).toBe(0)
  })

  it("reads RATES as rising positive integers", () => {
    expect(parseRates("50, 100,200")).toEqual([50, 100, 200])
    expect(() => parseRates("100,50")).toThrow()
    expect(() => parseRates("0,50")).toThrow()
    expect(() => parseRates("50,x")).toThrow()
  })

  it("names the part of the path a statement belongs to", () => {
    expect(statementPart("WITH ev AS (\n INSERT INTO webhook_events (partner_id, id) SELECT $1")).toBe(
      "event insert + fan-out"
    )
    expect(statementPart("SELECT webhook_append_event($1, $2::uuid, $3)")).toBe("event insert + fan-out")
    expect(statementPart("SELECT * FROM webhook_claim_due($1, $2, $3, $4)")).toBe("claim")
    expect(statementPart("SELECT webhook_finish_attempts($1::json, $2)")).toBe("outcome write")
    expect(statementPart("SELECT pg_notify($1, $2)")).toBe("NOTIFY")
    expect(statementPart("BEGIN")).toBe("transaction control")
    expect(statementPart("INSERT INTO ledger_entries (partner_id) VALUES ($1)")).toBe("ledger movement, payment")
    expect(statementPart("SELECT 1")).toBe("other")
  })
})

/**
 * The campaign's own guarantees, which its CI form relies on: seeds run side by side give the
 * traces they give alone, and a seed lets the event loop turn while it runs (on a clock that never
 * waited on a real timer, a whole file of seeds ran in one stretch and vitest's worker RPC timed
 * out: docs/reliability.md, "Test length").
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { runSeed } from "./campaign.js"

const STEPS = 150

describe("the seeded campaign", () => {
  it.effect("a seed's trace is the same alone and beside other seeds", () =>
    Effect.gen(function* () {
      const seeds = [5, 6, 7]
      const alone = yield* Effect.forEach(seeds, (seed) => runSeed(seed, { steps: STEPS, kind: "memory" }))
      const together = yield* Effect.forEach(seeds, (seed) => runSeed(seed, { steps: STEPS, kind: "memory" }), {
        concurrency: "unbounded"
      })
      expect(together.map((r) => r.trace)).toEqual(alone.map((r) => r.trace))
      for (const report of alone) expect(report.violations).toEqual([])
    })
  )

  it.effect("each seed has a TestClock of its own: the caller's clock does not move", () =>
    Effect.gen(function* () {
      const before = yield* Clock.currentTimeMillis
      const report = yield* runSeed(8, { steps: STEPS, kind: "memory" })
      expect(report.trace.some((line) => line.includes(": advance "))).toBe(true)
      expect(yield* Clock.currentTimeMillis).toBe(before)
    })
  )

  it("lets the event loop turn while a seed runs", async () => {
    let turns = 0
    const timer = setInterval(() => turns++, 5)
    try {
      await Effect.runPromise(runSeed(9, { steps: STEPS, kind: "memory" }))
    } finally {
      clearInterval(timer)
    }
    expect(turns).toBeGreaterThan(0)
  })
})

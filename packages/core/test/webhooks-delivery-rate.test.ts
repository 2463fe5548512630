/**
 * The delivery rate's pure rule: for any sequence of claims, no sliding second holds more grants
 * than the limit, no claim takes more than a burst, and a backlog is served at close to the rate.
 */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import {
  burstSlots,
  deferredUntil,
  emptyRateState,
  isValidRate,
  type RateState,
  takeRate
} from "../src/webhooks/deliveryRate.js"

describe("delivery rate", () => {
  it("never grants more than the limit in any sliding second, nor more than a burst per claim", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 700 }), wanted: fc.integer({ min: 0, max: 30 }) }), {
          maxLength: 120
        }),
        (perSecond, claims) => {
          let state: RateState = emptyRateState
          let now = 1_000_000
          const grants: Array<[number, number]> = []
          for (const c of claims) {
            now += c.gap
            const take = takeRate(state, perSecond, c.wanted, now)
            expect(take.granted).toBeLessThanOrEqual(Math.min(c.wanted, burstSlots(perSecond)))
            if (take.granted < c.wanted) expect(take.retryAt).toBeGreaterThan(now)
            state = take.state
            if (take.granted > 0) grants.push([now, take.granted])
          }
          for (const [at] of grants) {
            const inSecond = grants.filter(([t]) => t >= at && t < at + 1_000).reduce((n, [, g]) => n + g, 0)
            expect(inSecond).toBeLessThanOrEqual(perSecond)
          }
        }
      )
    )
  })

  it("a backlog claimed at each retry time runs at the rate, evenly", () => {
    let state: RateState = emptyRateState
    let now = 0
    const times: Array<number> = []
    while (times.length < 50) {
      const take = takeRate(state, 5, 10, now)
      state = take.state
      for (let i = 0; i < take.granted; i++) times.push(now)
      now = take.retryAt
    }
    expect(times.slice(0, 6)).toEqual([0, 200, 400, 600, 800, 1_000])
    expect(times[49]).toBe(49 * 200)
  })

  it("spreads deferred deliveries a slot apart, and accepts only whole limits in 1..10,000 or null", () => {
    expect([0, 1, 2, 5].map((k) => deferredUntil(1_000, k, 5))).toEqual([1_000, 1_200, 1_400, 2_000])
    expect([null, 1, 10_000].every(isValidRate)).toBe(true)
    expect([0, 10_001, 1.5, -1, Number.NaN].some(isValidRate)).toBe(false)
  })
})

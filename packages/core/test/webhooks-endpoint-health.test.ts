/**
 * The endpoint-health rules as pure functions: what a batch of outcomes does to an endpoint's
 * health (taken in time order), when a success changes nothing worth writing, the disable rule at
 * its thresholds, and what a change of the active flag does.
 */
import { describe, expect, it } from "@effect/vitest"
import { Webhooks } from "@frank/core"
import {
  afterActiveChange,
  afterOutcomes,
  meetsDisableRule,
  SUCCESS_RESOLUTION_MS
} from "../src/webhooks/EndpointHealth.js"
import fc from "fast-check"

const ok = (at: number) => ({ at, delivered: true })
const dead = (at: number) => ({ at, delivered: false })
const policy = { afterMs: 5_000, minFailures: 2 }

/** The rule applied outcome by outcome, in time order: what a batch must equal. */
const oneByOne = (h: Webhooks.EndpointHealth, outcomes: ReadonlyArray<{ at: number; delivered: boolean }>) => {
  let acc = h
  const inOrder = [...outcomes].sort((a, b) => a.at - b.at || Number(a.delivered) - Number(b.delivered))
  for (const o of inOrder)
    acc = o.delivered
      ? {
          ...acc,
          lastSuccessAt: Math.max(acc.lastSuccessAt ?? o.at, o.at),
          failingSince: null,
          strikes: 0,
          strikesSince: null
        }
      : {
          ...acc,
          failingSince: acc.failingSince ?? o.at,
          strikes: acc.strikes + 1,
          strikesSince: acc.strikesSince ?? o.at
        }
  return acc
}

describe("endpoint health rules", () => {
  it("a dead letter starts the failing span and counts; a success ends it", () => {
    const failing = afterOutcomes(Webhooks.newEndpointHealth, [dead(100), dead(300)])
    expect(failing).toMatchObject({ lastSuccessAt: null, failingSince: 100, strikes: 2, strikesSince: 100 })
    const again = afterOutcomes(failing ?? Webhooks.newEndpointHealth, [dead(500)])
    expect(again).toMatchObject({ failingSince: 100, strikes: 3, strikesSince: 100 })
    expect(afterOutcomes(again ?? Webhooks.newEndpointHealth, [ok(900)])).toMatchObject({
      lastSuccessAt: 900,
      failingSince: null,
      strikes: 0,
      strikesSince: null
    })
  })

  it("in one batch, only the dead letters after its last success count", () => {
    expect(afterOutcomes(Webhooks.newEndpointHealth, [dead(1), ok(2), dead(3), dead(4)])).toMatchObject({
      lastSuccessAt: 2,
      failingSince: 3,
      strikes: 2,
      strikesSince: 3
    })
  })

  it("a success within a second of the recorded one needs no write; later, it does", () => {
    const h = { ...Webhooks.newEndpointHealth, lastSuccessAt: 10_000 }
    expect(afterOutcomes(h, [ok(10_000 + SUCCESS_RESOLUTION_MS)])).toBeUndefined()
    expect(afterOutcomes(h, [ok(9_000)])).toBeUndefined()
    expect(afterOutcomes(h, [ok(10_000 + SUCCESS_RESOLUTION_MS + 1)])?.lastSuccessAt).toBe(11_001)
    expect(afterOutcomes(h, [])).toBeUndefined()
  })

  it("property: a batch equals its outcomes taken one by one (up to the second's resolution)", () => {
    const outcome = fc.record({ at: fc.integer({ min: 0, max: 100_000 }), delivered: fc.boolean() })
    fc.assert(
      fc.property(fc.array(outcome, { maxLength: 12 }), fc.array(outcome, { maxLength: 12 }), (before, batch) => {
        const start = afterOutcomes(Webhooks.newEndpointHealth, before) ?? Webhooks.newEndpointHealth
        const expected = oneByOne(start, batch)
        const got = afterOutcomes(start, batch) ?? start
        expect({ ...got, lastSuccessAt: null }).toEqual({ ...expected, lastSuccessAt: null })
        if (got.lastSuccessAt !== expected.lastSuccessAt)
          expect((expected.lastSuccessAt ?? 0) - (got.lastSuccessAt ?? 0)).toBeLessThanOrEqual(SUCCESS_RESOLUTION_MS)
      })
    )
  })

  it("the disable rule holds from the span's age and count on, not a millisecond before", () => {
    const h = { ...Webhooks.newEndpointHealth, failingSince: 1_000, strikes: 2, strikesSince: 1_000 }
    expect(meetsDisableRule(h, policy, 5_999)).toBe(false)
    expect(meetsDisableRule(h, policy, 6_000)).toBe(true)
    expect(meetsDisableRule({ ...h, strikes: 1 }, policy, 60_000)).toBe(false)
    expect(meetsDisableRule(Webhooks.newEndpointHealth, policy, 60_000)).toBe(false)
  })

  it("a change of the active flag records or clears the pause and restarts the strikes, keeping the span", () => {
    const h = { ...Webhooks.newEndpointHealth, failingSince: 1_000, strikes: 3, strikesSince: 1_000 }
    expect(afterActiveChange(h, true, true, 5_000)).toBe(h)
    const byHand = afterActiveChange(h, true, false, 5_000)
    expect(byHand).toMatchObject({ disabledAt: 5_000, disabledReason: null, failingSince: 1_000, strikes: 0 })
    const byRule = afterActiveChange(h, true, false, 5_000, "failing")
    expect(byRule).toMatchObject({ disabledAt: 5_000, disabledReason: "failing", strikesSince: null })
    expect(afterActiveChange(byRule, false, true, 7_000)).toMatchObject({
      disabledAt: null,
      disabledReason: null,
      failingSince: 1_000,
      strikes: 0
    })
  })
})

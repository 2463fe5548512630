import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { claimableAt, isClaimable, isEndpointOpen } from "../src/webhooks/internal/claimable.js"
import { type DeliveryState, DeliveryStatus, transition } from "../src/webhooks/DeliveryState.js"

const delivery = fc.record<DeliveryState>({
  status: fc.constantFrom(...DeliveryStatus.literals),
  attempts: fc.integer({ min: 0, max: 6 }),
  nextAttemptAt: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: null }),
  leaseUntil: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: null })
})
const endpoint = fc.option(fc.record({ active: fc.boolean(), deletedAt: fc.option(fc.nat(), { nil: null }) }), {
  nil: undefined
})

describe("claimable", () => {
  it("a delivery is claimable exactly when the state machine would claim it and its endpoint is active and not deleted", () =>
    fc.assert(
      fc.property(delivery, endpoint, fc.integer({ min: 0, max: 1000 }), (d, e, now) => {
        const open = e?.active === true && e.deletedAt === null
        expect(isEndpointOpen(e)).toBe(open)
        expect(isClaimable(d, e, now)).toBe(open && transition(d, { _tag: "Claim", leaseMs: 1 }, now)._tag === "Moved")
      })
    ))

  it("claimableAt is the first moment the delivery is claimable as it stands", () =>
    fc.assert(
      fc.property(delivery, endpoint, fc.integer({ min: 0, max: 1000 }), (d, e, now) => {
        const at = claimableAt(d, e)
        expect(isClaimable(d, e, now)).toBe(at !== null && at <= now)
        if (at !== null) expect(isClaimable(d, e, at - 1)).toBe(false)
      })
    ))
})

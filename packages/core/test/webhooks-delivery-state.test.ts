import { describe, expect, it } from "@effect/vitest"
import {
  type DeliveryInput,
  type DeliveryState,
  type DeliveryStatus,
  initialDelivery,
  MAX_ATTEMPTS,
  transition
} from "../src/webhooks/DeliveryState.js"

const MIN = 60_000
const moved = (s: DeliveryState, input: DeliveryInput, now: number): DeliveryState => {
  const t = transition(s, input, now)
  if (t._tag !== "Moved") throw new Error(`rejected: ${t.reason}`)
  return t.state
}

describe("delivery state machine", () => {
  it("retries at 0, 1, 6, 36, 156, 516 minutes, then dead-letters", () => {
    let s = initialDelivery(0)
    const attemptsAt: number[] = []
    let now = 0
    while (s.status === "pending") {
      now = s.nextAttemptAt!
      attemptsAt.push(now / MIN)
      s = moved(s, { _tag: "Claim", leaseMs: 30_000 }, now)
      s = moved(s, { _tag: "Failed" }, now + 1)
      now += 1
    }
    expect(attemptsAt).toEqual([0, 1 + 1 / MIN, 6 + 2 / MIN, 36 + 3 / MIN, 156 + 4 / MIN, 516 + 5 / MIN])
    expect(s).toMatchObject({ status: "dead_lettered", attempts: MAX_ATTEMPTS })
  })

  it("does not claim before the attempt is due, and a lease expiring mid-request makes it uncertain", () => {
    const s = initialDelivery(1000)
    expect(transition(s, { _tag: "Claim", leaseMs: 10 }, 999)).toEqual({ _tag: "Rejected", reason: "not_due" })
    const d = moved(s, { _tag: "Claim", leaseMs: 30_000 }, 1000)
    expect(transition(d, { _tag: "LeaseExpired", sent: true }, 30_999)).toEqual({
      _tag: "Rejected",
      reason: "lease_active"
    })
    expect(moved(d, { _tag: "LeaseExpired", sent: true }, 31_000)).toEqual({
      status: "uncertain",
      attempts: 1,
      nextAttemptAt: null,
      leaseUntil: null
    })
  })

  it("a lease expiring before the request was sent returns the delivery to pending, due now, its attempt uncounted", () => {
    const failedOnce = moved(moved(initialDelivery(0), { _tag: "Claim", leaseMs: 30_000 }, 0), { _tag: "Failed" }, 1)
    const d = moved(failedOnce, { _tag: "Claim", leaseMs: 30_000 }, MIN + 1)
    expect(d.attempts).toBe(2)
    expect(transition(d, { _tag: "LeaseExpired", sent: false }, MIN)).toEqual({
      _tag: "Rejected",
      reason: "lease_active"
    })
    expect(moved(d, { _tag: "LeaseExpired", sent: false }, MIN + 30_001)).toEqual({
      status: "pending",
      attempts: 1,
      nextAttemptAt: MIN + 30_001,
      leaseUntil: null
    })
    for (const status of ["pending", "delivered", "uncertain", "dead_lettered"] as const)
      expect(transition({ ...d, status }, { _tag: "LeaseExpired", sent: false }, MIN + 30_001)._tag).toBe("Rejected")
  })

  it("replay re-queues uncertain, dead-lettered and delivered deliveries with a fresh budget", () => {
    for (const status of ["uncertain", "dead_lettered", "delivered"] as const) {
      const s: DeliveryState = { status, attempts: 6, nextAttemptAt: null, leaseUntil: null }
      expect(moved(s, { _tag: "Replay" }, 5)).toEqual({
        status: "pending",
        attempts: 0,
        nextAttemptAt: 5,
        leaseUntil: null
      })
    }
  })

  it("recovery gives one attempt now and the attempts go on counting", () => {
    const claimAndFail = (s: DeliveryState) =>
      moved(moved(s, { _tag: "Claim", leaseMs: 30_000 }, 100), { _tag: "Failed" }, 101)
    const dead: DeliveryState = {
      status: "dead_lettered",
      attempts: MAX_ATTEMPTS,
      nextAttemptAt: null,
      leaseUntil: null
    }
    const recovered = moved(dead, { _tag: "Recover" }, 100)
    expect(recovered).toEqual({ status: "pending", attempts: MAX_ATTEMPTS, nextAttemptAt: 100, leaseUntil: null })
    // The budget was spent: a failing seventh attempt dead-letters it again.
    expect(claimAndFail(recovered)).toMatchObject({ status: "dead_lettered", attempts: MAX_ATTEMPTS + 1 })
    // An uncertain one after two attempts goes on with the schedule's third delay (30 min).
    const uncertain: DeliveryState = { status: "uncertain", attempts: 2, nextAttemptAt: null, leaseUntil: null }
    expect(claimAndFail(moved(uncertain, { _tag: "Recover" }, 100))).toEqual({
      status: "pending",
      attempts: 3,
      nextAttemptAt: 101 + 30 * MIN,
      leaseUntil: null
    })
  })

  it("every (state, input) pair either moves to an allowed state or is rejected", () => {
    const states: Record<DeliveryStatus, DeliveryState> = {
      pending: { status: "pending", attempts: 2, nextAttemptAt: 0, leaseUntil: null },
      delivering: { status: "delivering", attempts: 2, nextAttemptAt: null, leaseUntil: 0 },
      delivered: { status: "delivered", attempts: 2, nextAttemptAt: null, leaseUntil: null },
      uncertain: { status: "uncertain", attempts: 2, nextAttemptAt: null, leaseUntil: null },
      dead_lettered: { status: "dead_lettered", attempts: 6, nextAttemptAt: null, leaseUntil: null }
    }
    const inputs: DeliveryInput[] = [
      { _tag: "Claim", leaseMs: 1 },
      { _tag: "Succeeded" },
      { _tag: "Failed" },
      { _tag: "LeaseExpired", sent: true },
      { _tag: "Replay" },
      { _tag: "Recover" }
    ]
    const allowed: Record<DeliveryStatus, Record<DeliveryInput["_tag"], DeliveryStatus | "rejected">> = {
      pending: {
        Claim: "delivering",
        Succeeded: "rejected",
        Failed: "rejected",
        LeaseExpired: "rejected",
        Replay: "rejected",
        Recover: "rejected"
      },
      delivering: {
        Claim: "rejected",
        Succeeded: "delivered",
        Failed: "pending",
        LeaseExpired: "uncertain",
        Replay: "rejected",
        Recover: "rejected"
      },
      delivered: {
        Claim: "rejected",
        Succeeded: "rejected",
        Failed: "rejected",
        LeaseExpired: "rejected",
        Replay: "pending",
        Recover: "rejected"
      },
      uncertain: {
        Claim: "rejected",
        Succeeded: "rejected",
        Failed: "rejected",
        LeaseExpired: "rejected",
        Replay: "pending",
        Recover: "pending"
      },
      dead_lettered: {
        Claim: "rejected",
        Succeeded: "rejected",
        Failed: "rejected",
        LeaseExpired: "rejected",
        Replay: "pending",
        Recover: "pending"
      }
    }
    for (const [status, state] of Object.entries(states) as Array<[DeliveryStatus, DeliveryState]>) {
      for (const input of inputs) {
        const t = transition(state, input, 10)
        expect(t._tag === "Moved" ? t.state.status : "rejected", `${status} + ${input._tag}`).toBe(
          allowed[status][input._tag]
        )
      }
    }
  })
})

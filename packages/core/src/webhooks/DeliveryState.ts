/**
 * The webhook delivery state machine as a pure function of (delivery, input, now). The worker
 * runs it; tests walk every (state, input) pair. Spec "States → Webhook delivery" and
 * docs/contract.md §5 (attempts, uncertain, replay).
 */
import { Schema } from "effect"
import { HOUR_MS, MINUTE_MS } from "../timeUnits.js"

/** The states of a delivery. */
export const DeliveryStatus = Schema.Literal("pending", "delivering", "delivered", "uncertain", "dead_lettered")
export type DeliveryStatus = typeof DeliveryStatus.Type

/** Waits after the 1st…5th failed attempt; the 6th failure dead-letters. Total 8 h 36 min. */
export const RETRY_DELAYS_MS: ReadonlyArray<number> = [
  MINUTE_MS,
  5 * MINUTE_MS,
  30 * MINUTE_MS,
  2 * HOUR_MS,
  6 * HOUR_MS
]
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1
export const RECEIVER_TIMEOUT_MS = 10_000

/** A delivery's state: status, attempts made and when the next is due. */
export interface DeliveryState {
  readonly status: DeliveryStatus
  /** Attempts made in the current budget (a replay starts a new budget). */
  readonly attempts: number
  /** When the next attempt is due (pending only). */
  readonly nextAttemptAt: number | null
  /** Lease end while delivering: past it, the worker is presumed dead (mid-request if it had sent). */
  readonly leaseUntil: number | null
}

export type DeliveryInput =
  | { readonly _tag: "Claim"; readonly leaseMs: number }
  | { readonly _tag: "Succeeded" }
  | { readonly _tag: "Failed" }
  /** `sent`: the worker marked the attempt's request as handed to the network before the lease ran out. */
  | { readonly _tag: "LeaseExpired"; readonly sent: boolean }
  | { readonly _tag: "Replay" }
  | { readonly _tag: "Recover" }

export type Transition =
  | { readonly _tag: "Moved"; readonly state: DeliveryState }
  | { readonly _tag: "Rejected"; readonly reason: "not_due" | "not_delivering" | "not_replayable" | "lease_active" }

const moved = (state: DeliveryState): Transition => ({ _tag: "Moved", state })
const rejected = (reason: Extract<Transition, { _tag: "Rejected" }>["reason"]): Transition => ({
  _tag: "Rejected",
  reason
})

export const initialDelivery = (now: number): DeliveryState => ({
  status: "pending",
  attempts: 0,
  nextAttemptAt: now,
  leaseUntil: null
})

/** When a delivery's next attempt is due: its due time while pending, null in every other status. */
export const dueAt = (s: DeliveryState): number | null => (s.status === "pending" ? s.nextAttemptAt : null)

export const isReplayable = (status: DeliveryStatus): boolean =>
  status === "uncertain" || status === "dead_lettered" || status === "delivered"

export const transition = (s: DeliveryState, input: DeliveryInput, now: number): Transition => {
  switch (input._tag) {
    case "Claim": {
      const due = dueAt(s)
      if (due === null || due > now) return rejected("not_due")
      return moved({
        status: "delivering",
        attempts: s.attempts + 1,
        nextAttemptAt: null,
        leaseUntil: now + input.leaseMs
      })
    }
    case "Succeeded":
      if (s.status !== "delivering") return rejected("not_delivering")
      return moved({ status: "delivered", attempts: s.attempts, nextAttemptAt: null, leaseUntil: null })
    case "Failed": {
      if (s.status !== "delivering") return rejected("not_delivering")
      const delay = RETRY_DELAYS_MS[s.attempts - 1]
      return delay === undefined
        ? moved({ status: "dead_lettered", attempts: s.attempts, nextAttemptAt: null, leaseUntil: null })
        : moved({ status: "pending", attempts: s.attempts, nextAttemptAt: now + delay, leaseUntil: null })
    }
    case "LeaseExpired":
      if (s.status !== "delivering") return rejected("not_delivering")
      if (s.leaseUntil !== null && s.leaseUntil > now) return rejected("lease_active")
      // Claimed but never sent: nothing reached the receiver, so the claim is undone (its attempt
      // uncounted) and the delivery is due again at once.
      if (!input.sent)
        return moved({ status: "pending", attempts: s.attempts - 1, nextAttemptAt: now, leaseUntil: null })
      // The request may have reached the receiver: never retried automatically.
      return moved({ status: "uncertain", attempts: s.attempts, nextAttemptAt: null, leaseUntil: null })
    case "Replay":
      if (!isReplayable(s.status)) return rejected("not_replayable")
      return moved({ status: "pending", attempts: 0, nextAttemptAt: now, leaseUntil: null })
    case "Recover":
      // Bulk recovery: one more attempt now, counted after the earlier ones, so a failing one
      // goes on with the schedule where it stopped (a dead-lettered one is dead-lettered again).
      if (s.status !== "dead_lettered" && s.status !== "uncertain") return rejected("not_replayable")
      return moved({ status: "pending", attempts: s.attempts, nextAttemptAt: now, leaseUntil: null })
  }
}

/**
 * Which webhook events a ledger movement causes (spec "Event types", docs/contract.md §5 "event
 * data"). Pure: the ledger service writes what this returns in the movement's own transaction.
 */
import type { AccountTotals } from "../Account.js"
import { availableMinor } from "../Account.js"
import { LOW_BALANCE_THRESHOLD_MINOR } from "./Balance.js"
import type { ExpiredGrant, HoldResult, MovementResult } from "../rules.js"
import type { BalanceAlert } from "../BalanceAlert.js"
import { iso } from "../../isoTime.js"
import { minorToFranks } from "../../internal/money.js"
import type { EventDraft } from "../../events/Event.js"
import { DAY_MS } from "../../timeUnits.js"

/** Spec: billing.low_balance at most once per 24 h per partner. */
export const LOW_BALANCE_INTERVAL_MS = DAY_MS

/** A credited top-up: `billing.topup.confirmed`; bonuses and adjustments emit nothing. */
export const creditEvents = (kind: "topup" | "bonus" | "adjustment", r: MovementResult): ReadonlyArray<EventDraft> =>
  kind !== "topup" || r.replayed
    ? []
    : [
        {
          type: "billing.topup.confirmed",
          sourceId: r.entry.id,
          data: {
            transactionId: r.entry.id,
            paymentId: r.entry.reference ?? null,
            amountFranks: minorToFranks(r.entry.amountMinor)
          }
        }
      ]

/** A confirmed charge: `billing.settled` with the final amount. */
export const confirmEvents = (r: HoldResult): ReadonlyArray<EventDraft> => {
  const transactionId = r.hold.settlementEntryId
  if (r.replayed || r.hold.status !== "confirmed" || transactionId === null) return []
  return [
    {
      type: "billing.settled",
      sourceId: transactionId,
      data: { transactionId, taskId: r.hold.taskId, amountFranks: minorToFranks(r.hold.chargedMinor) }
    }
  ]
}

/** A reservation given back after a failed task: `billing.refunded`. */
export const refundEvents = (r: HoldResult): ReadonlyArray<EventDraft> => {
  const transactionId = r.hold.settlementEntryId
  if (r.replayed || r.hold.status !== "refunded" || transactionId === null) return []
  return [
    {
      type: "billing.refunded",
      sourceId: transactionId,
      data: { transactionId, taskId: r.hold.taskId, amountFranks: minorToFranks(r.hold.releasedMinor) }
    }
  ]
}

export const isLow = (totals: AccountTotals): boolean => availableMinor(totals) < LOW_BALANCE_THRESHOLD_MINOR

/** The low-balance event for these totals (emitted only when the 24 h marker allows). */
export const lowBalanceEvent = (totals: AccountTotals): EventDraft => ({
  type: "billing.low_balance",
  data: {
    availableFranks: minorToFranks(Math.max(0, availableMinor(totals))),
    thresholdFranks: minorToFranks(LOW_BALANCE_THRESHOLD_MINOR)
  }
})

/** Grant money clawed back: one `billing.bonus_expired` per grant and clawing row. */
export const bonusExpiredEvents = (expired: ReadonlyArray<ExpiredGrant>): ReadonlyArray<EventDraft> =>
  expired.map((x) => ({
    type: "billing.bonus_expired",
    sourceId: `${x.entryId}:${x.grantId}`,
    data: { grantId: x.grantId, amountFranks: minorToFranks(x.amountMinor), expiredAt: iso(x.expiredAt) }
  }))

/** An alert that changed state: `billing.balance_alert`, numbered by the alert's crossings. */
export const balanceAlertEvent = (alert: BalanceAlert, availableMinor: number): EventDraft => ({
  type: "billing.balance_alert",
  sourceId: `${alert.id}:${alert.crossings}`,
  data: {
    alertId: alert.id,
    thresholdFranks: minorToFranks(alert.thresholdMinor),
    state: alert.state === "triggered" ? "triggered" : "resolved",
    availableFranks: minorToFranks(Math.max(0, availableMinor))
  }
})

/**
 * The payment status machine as a pure function of (current status, reported status). The
 * acquirer reports statuses through notifications, which may repeat or arrive out of order;
 * only legal transitions move a payment, everything else is a harmless no-op.
 *
 * ```
 * pending ──► authorized ──► confirmed      (confirmed credits the ledger, once)
 *    │  └───────────────────► confirmed     (one-stage payments skip authorized)
 *    └──────────┴──────────► canceled | rejected | failed
 * ```
 *
 * - Repeated: the payment already has the reported status → `Unchanged` ("repeated").
 * - Late: a step the payment has already passed (authorized after confirmed, pending after
 *   anything) → `Unchanged` ("stale"); the notification was overtaken by a later one.
 * - Contradiction: a final status reported for a payment that reached another final status
 *   (confirmed after canceled, canceled after confirmed) → `Refused`. Money moves only on
 *   `pending|authorized → confirmed`, so a confirmation after a cancel can never credit.
 */
import type { PaymentStatus } from "./Payment.js"

export type PaymentTransition =
  | { readonly _tag: "Moved"; readonly from: PaymentStatus; readonly to: PaymentStatus }
  | { readonly _tag: "Unchanged"; readonly status: PaymentStatus; readonly reason: "repeated" | "stale" }
  | {
      readonly _tag: "Refused"
      readonly status: PaymentStatus
      readonly reported: PaymentStatus
      readonly reason: "final"
    }

export const FINAL_PAYMENT_STATUSES: ReadonlySet<PaymentStatus> = new Set<PaymentStatus>([
  "confirmed",
  "canceled",
  "rejected",
  "failed"
])

export const isFinalPaymentStatus = (status: PaymentStatus): boolean => FINAL_PAYMENT_STATUSES.has(status)

/** How far along a payment is: pending 0, authorized 1, any final status 2. */
const stage = (s: PaymentStatus): number => (s === "pending" ? 0 : s === "authorized" ? 1 : 2)

/** What a reported status does to a payment in its current status (the state machine). */
export const paymentTransition = (current: PaymentStatus, reported: PaymentStatus): PaymentTransition => {
  if (current === reported) return { _tag: "Unchanged", status: current, reason: "repeated" }
  if (stage(reported) < stage(current)) return { _tag: "Unchanged", status: current, reason: "stale" }
  if (isFinalPaymentStatus(current)) return { _tag: "Refused", status: current, reported, reason: "final" }
  return { _tag: "Moved", from: current, to: reported }
}

/** True when this transition is the one that credits the ledger. */
export const creditsLedger = (t: PaymentTransition): boolean => t._tag === "Moved" && t.to === "confirmed"

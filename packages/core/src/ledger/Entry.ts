/**
 * A ledger entry: one immutable row per money movement. Corrections are new entries, never edits.
 */
import { Schema } from "effect"
import type { Minor } from "../internal/money.js"
import type { PartnerId } from "../EntityIds.js"

/** Row types of the partner API (spec "Transaction"). */
export const TransactionType = Schema.Literal("topup", "reservation", "confirm", "refund", "debit", "bonus_reversal")
export type TransactionType = typeof TransactionType.Type

/** Whose money a top-up was: a legal entity's invoice (`company`) or a card payment (`personal`). */
export const Attribution = Schema.Literal("company", "personal")
export type Attribution = typeof Attribution.Type

/**
 * The operation kind behind a row (spec: "top-up, bonus, task or order hold/charge/refund,
 * adjustment, and others"). `type` says how the row moves the balance; `kind` says why.
 */
export const EntryKind = Schema.Literal(
  "topup", // credited payment or paid invoice
  "bonus", // promotional credit
  "adjustment", // operator correction, either sign
  "bonus_reversal", // claw-back of a bonus; lowers total, is not spend
  "bonus_expired", // claw-back of an expired grant's remainder (CreditGrant.ts)
  "task_hold", // reservation for a task
  "task_charge", // confirmed charge of a task
  "task_release", // unused remainder of a hold released at confirm
  "task_refund", // hold released after a task failed
  "task_hold_expired", // hold released because it expired before its task settled
  "spend_refund", // refund of confirmed spend not tied to a task
  "legacy_debit" // direct charge of the legacy API, counted as spend
)
export type EntryKind = typeof EntryKind.Type

/** A ledger entry as stored: an amount in minor units, its type, sequence and attribution. */
export interface LedgerEntry {
  readonly id: string
  readonly partnerId: PartnerId
  /** Monotonic position inside the store; orders rows written in the same millisecond. */
  readonly seq: number
  readonly type: TransactionType
  readonly kind: EntryKind
  /** Magnitude in minor units; only `adjustment` rows may be negative (a debit correction). */
  readonly amountMinor: Minor
  /** Price per unit in micro-franks when the row prices a metered operation. */
  readonly unitPriceMicros: number | null
  readonly taskId: string | null
  readonly attribution: Attribution | null
  /**
   * Idempotency reference of the business fact behind the row (payment id, invoice id, operator
   * request id). Two rows of the same partner and kind never share one.
   */
  readonly reference: string | null
  readonly label: string
  readonly description: string
  /** Epoch milliseconds, from Effect's Clock. */
  readonly occurredAt: number
}

/** An entry before the store assigns its sequence number. */
export type NewLedgerEntry = Omit<LedgerEntry, "seq">

/**
 * The balance resource of the partner API (spec "Balance").
 */
import { Schema } from "effect"
import { type Minor, minorToFranks } from "../Money.js"
import { type AccountTotals, availableMinor } from "./Account.js"

/** Below this available amount the balance is low and `billing.low_balance` fires. */
export const LOW_BALANCE_THRESHOLD_MINOR: Minor = 1000 * 100

export const Balance = Schema.Struct({
  total: Schema.Number,
  used: Schema.Number,
  reserved: Schema.Number,
  available: Schema.Number,
  isLow: Schema.Boolean,
  lowBalanceThresholdFranks: Schema.Number
}).annotations({ identifier: "Balance" })
export type Balance = typeof Balance.Type

export const balanceView = (t: AccountTotals): Balance => {
  const available = Math.max(0, availableMinor(t))
  return {
    total: minorToFranks(t.totalMinor),
    used: minorToFranks(t.usedMinor),
    reserved: minorToFranks(t.reservedMinor),
    available: minorToFranks(available),
    isLow: available < LOW_BALANCE_THRESHOLD_MINOR,
    lowBalanceThresholdFranks: minorToFranks(LOW_BALANCE_THRESHOLD_MINOR)
  }
}

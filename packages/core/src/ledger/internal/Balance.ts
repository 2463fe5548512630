/**
 * The balance resource of the partner API (spec "Balance").
 */
import { Schema } from "effect"
import { type Minor, minorToFranks } from "../../internal/money.js"
import { type AccountTotals, availableMinor } from "../Account.js"
import type { CreditGrant } from "../CreditGrant.js"
import { iso } from "../../isoTime.js"

/** One coming expiry of bonus credit. */
export const ExpiringCredit = Schema.Struct({
  amountFranks: Schema.Number.annotations({ description: "Unspent credit of the grant (reserved included), ₣" }),
  expiresAt: Schema.String.annotations({ description: "ISO 8601; what is left unreserved then is clawed back" }),
  grantId: Schema.String
}).annotations({ identifier: "ExpiringCredit" })

/** Below this available amount the balance is low and `billing.low_balance` fires. */
export const LOW_BALANCE_THRESHOLD_MINOR: Minor = 1000 * 100

export const Balance = Schema.Struct({
  total: Schema.Number,
  used: Schema.Number,
  reserved: Schema.Number,
  available: Schema.Number,
  isLow: Schema.Boolean,
  lowBalanceThresholdFranks: Schema.Number,
  expiring: Schema.Array(ExpiringCredit).annotations({
    description: "The next expiries of bonus credit (at most 5), soonest first"
  })
}).annotations({ identifier: "Balance" })
export type Balance = typeof Balance.Type

export const balanceView = (t: AccountTotals, expiring: ReadonlyArray<CreditGrant> = []): Balance => {
  const available = Math.max(0, availableMinor(t))
  return {
    total: minorToFranks(t.totalMinor),
    used: minorToFranks(t.usedMinor),
    reserved: minorToFranks(t.reservedMinor),
    available: minorToFranks(available),
    isLow: available < LOW_BALANCE_THRESHOLD_MINOR,
    lowBalanceThresholdFranks: minorToFranks(LOW_BALANCE_THRESHOLD_MINOR),
    expiring: expiring.flatMap((g) =>
      g.expiresAt === null
        ? []
        : [{ amountFranks: minorToFranks(g.remainingMinor), expiresAt: iso(g.expiresAt), grantId: g.id }]
    )
  }
}

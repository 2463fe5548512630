/**
 * The partner API's resources for grants and balance alerts (issue 32): what
 * `GET /v1/billing/credit-grants` and `/v1/billing/alerts` answer, and their mappers.
 */
import { Schema } from "effect"
import { isoOrNull, iso } from "../../isoTime.js"
import { minorToFranks } from "../../internal/money.js"
import { AlertState, type BalanceAlert } from "../BalanceAlert.js"
import type { CreditGrant } from "../CreditGrant.js"

export const CreditGrantView = Schema.Struct({
  id: Schema.String.annotations({ description: "The grant; also the id of the bonus transaction that credited it" }),
  grantedFranks: Schema.Number,
  remainingFranks: Schema.Number.annotations({ description: "Neither spent nor expired; includes reservedFranks" }),
  reservedFranks: Schema.Number.annotations({ description: "Taken by reservations of running tasks" }),
  priority: Schema.Number.annotations({ description: "0..100; lower is spent first" }),
  expiresAt: Schema.NullOr(Schema.String).annotations({ description: "null: never expires" }),
  expiredAt: Schema.NullOr(Schema.String).annotations({ description: "When the expiry sweep clawed it back" }),
  createdAt: Schema.String
}).annotations({ identifier: "CreditGrant" })

export const CreditGrantList = Schema.Struct({
  items: Schema.Array(CreditGrantView).annotations({ description: "Newest first, at most 100" })
}).annotations({ identifier: "CreditGrantList" })

export const creditGrantView = (g: CreditGrant): typeof CreditGrantView.Type => ({
  id: g.id,
  grantedFranks: minorToFranks(g.grantedMinor),
  remainingFranks: minorToFranks(g.remainingMinor),
  reservedFranks: minorToFranks(g.reservedMinor),
  priority: g.priority,
  expiresAt: isoOrNull(g.expiresAt),
  expiredAt: isoOrNull(g.expiredAt),
  createdAt: iso(g.createdAt)
})

export const BalanceAlertView = Schema.Struct({
  id: Schema.String,
  thresholdFranks: Schema.Number,
  state: AlertState.annotations({ description: "`triggered` while available is below the threshold" }),
  createdAt: Schema.String
}).annotations({ identifier: "BalanceAlert" })

export const BalanceAlertList = Schema.Struct({ items: Schema.Array(BalanceAlertView) }).annotations({
  identifier: "BalanceAlertList"
})

export const balanceAlertView = (a: BalanceAlert): typeof BalanceAlertView.Type => ({
  id: a.id,
  thresholdFranks: minorToFranks(a.thresholdMinor),
  state: a.state,
  createdAt: iso(a.createdAt)
})

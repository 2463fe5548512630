/**
 * Balance alerts: a partner's own thresholds on the available balance. An alert is `triggered`
 * while available is below its threshold and `ok` otherwise; each change of state is one
 * `billing.balance_alert` event, decided in the money movement's own transaction under the
 * account lock, so racing movements cross a threshold once.
 */
import { Schema } from "effect"
import type { Minor } from "../internal/money.js"
import type { PartnerId } from "../EntityIds.js"

/** Alerts one partner may keep. */
export const MAX_ALERTS_PER_PARTNER = 5
/** The highest threshold, 10,000,000 ₣ in minor units. */
export const MAX_ALERT_THRESHOLD_MINOR: Minor = 10_000_000 * 100
/** The lowest threshold, 1 ₣ in minor units. */
export const MIN_ALERT_THRESHOLD_MINOR: Minor = 100

/** `triggered` while available is below the threshold. */
export const AlertState = Schema.Literal("ok", "triggered")
export type AlertState = typeof AlertState.Type

/** A balance alert as stored. */
export interface BalanceAlert {
  readonly id: string
  readonly partnerId: PartnerId
  readonly thresholdMinor: Minor
  readonly state: AlertState
  readonly createdAt: number
  /** State changes so far; numbers the alert's events. */
  readonly crossings: number
}

/** The state an alert should be in at this available amount. */
export const alertStateAt = (thresholdMinor: Minor, availableMinor: Minor): AlertState =>
  availableMinor < thresholdMinor ? "triggered" : "ok"

/** The partner already keeps MAX_ALERTS_PER_PARTNER alerts (ALERT_LIMIT_REACHED, 409). */
export class AlertLimitReached extends Schema.TaggedError<AlertLimitReached>()("AlertLimitReached", {
  code: Schema.optionalWith(Schema.Literal("ALERT_LIMIT_REACHED"), { default: () => "ALERT_LIMIT_REACHED" as const }),
  message: Schema.String
}) {}

/** No alert of this partner has that id (ALERT_NOT_FOUND, 404). */
export class AlertNotFound extends Schema.TaggedError<AlertNotFound>()("AlertNotFound", {
  code: Schema.optionalWith(Schema.Literal("ALERT_NOT_FOUND"), { default: () => "ALERT_NOT_FOUND" as const }),
  message: Schema.String
}) {}

/** A threshold out of 1..10,000,000 ₣ (ALERT_THRESHOLD_INVALID, 400). */
export class InvalidAlertThreshold extends Schema.TaggedError<InvalidAlertThreshold>()("InvalidAlertThreshold", {
  code: Schema.optionalWith(Schema.Literal("ALERT_THRESHOLD_INVALID"), {
    default: () => "ALERT_THRESHOLD_INVALID" as const
  }),
  message: Schema.String
}) {}

/**
 * Expiring bonus credit (a grant): a bonus credited with a priority and, usually, an expiry.
 * Spending draws from live grants before the rest of the balance, in `drawOrder`; what a grant
 * still holds when it expires is clawed back (a `bonus_reversal` row of kind `bonus_expired`).
 */
import type { Minor } from "../internal/money.js"
import type { PartnerId } from "../EntityIds.js"

/** Priorities a grant may carry: lower numbers are spent first. */
export const GRANT_PRIORITY_MIN = 0
/** The highest (last spent) grant priority. */
export const GRANT_PRIORITY_MAX = 100
/** The priority of a grant credited without one. */
export const DEFAULT_GRANT_PRIORITY = 50

/** One expiring (or prioritised) bonus credit and what is left of it. */
export interface CreditGrant {
  /** The id of the bonus entry that credited it. */
  readonly id: string
  readonly partnerId: PartnerId
  readonly grantedMinor: Minor
  /** Neither spent nor expired yet; includes what open holds took from it. */
  readonly remainingMinor: Minor
  /** The part of `remainingMinor` that open holds took. */
  readonly reservedMinor: Minor
  /** 0..100; lower is spent first. */
  readonly priority: number
  /** Epoch ms at which the remainder is clawed back; null: never expires. */
  readonly expiresAt: number | null
  readonly createdAt: number
  /** When the expiry sweep clawed it back; null while live. */
  readonly expiredAt: number | null
}

/** What one hold took from one grant. */
export interface GrantDraw {
  readonly grantId: string
  readonly amountMinor: Minor
}

/** What a grant can still give to a new hold or outflow: its unreserved remainder while live. */
export const grantAvailableMinor = (g: CreditGrant): Minor =>
  g.expiredAt === null ? g.remainingMinor - g.reservedMinor : 0

/**
 * The order in which spending draws from grants: lower priority number first, then the soonest
 * expiry, then grants that never expire; ties by age and id so every store agrees.
 */
export const drawOrder = (a: CreditGrant, b: CreditGrant): number =>
  a.priority - b.priority ||
  (a.expiresAt ?? Number.MAX_SAFE_INTEGER) - (b.expiresAt ?? Number.MAX_SAFE_INTEGER) ||
  a.createdAt - b.createdAt ||
  (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** Whether a grant is valid on its own: amounts in range and consistent. */
export const grantIsValid = (g: CreditGrant): boolean =>
  g.reservedMinor >= 0 &&
  g.reservedMinor <= g.remainingMinor &&
  g.remainingMinor <= g.grantedMinor &&
  (g.expiredAt === null || g.remainingMinor === g.reservedMinor)

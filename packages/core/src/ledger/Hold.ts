/**
 * A hold reserves funds for one task and resolves exactly once: confirmed (charge ≤ reserved, the
 * remainder released) or refunded (all released).
 */
import { Schema } from "effect"
import type { Minor } from "../Money.js"
import type { PartnerId } from "../EntityIds.js"

export const HoldStatus = Schema.Literal("open", "confirmed", "refunded")
export type HoldStatus = typeof HoldStatus.Type

export interface Hold {
  readonly partnerId: PartnerId
  readonly taskId: string
  readonly status: HoldStatus
  readonly reservedMinor: Minor
  /** Charged at confirm; 0 while open or after a refund. */
  readonly chargedMinor: Minor
  /** Released back to available at settlement (remainder at confirm, everything at refund). */
  readonly releasedMinor: Minor
  readonly reservationEntryId: string
  /** The confirm or refund entry that settled the hold. */
  readonly settlementEntryId: string | null
  readonly createdAt: number
  readonly settledAt: number | null
}

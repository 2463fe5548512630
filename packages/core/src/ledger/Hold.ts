/**
 * A hold reserves funds for one task and resolves exactly once: confirmed (charge ≤ reserved, the
 * remainder released) or refunded (all released, at a failure or at its expiry).
 */
import { Schema } from "effect"
import type { Minor } from "../internal/money.js"
import type { PartnerId, TaskId } from "../EntityIds.js"
import type { GrantDraw } from "./CreditGrant.js"

export const HoldStatus = Schema.Literal("open", "confirmed", "refunded")
export type HoldStatus = typeof HoldStatus.Type

/** A reservation of funds for a task, until it is confirmed or released. */
export interface Hold {
  readonly partnerId: PartnerId
  readonly taskId: TaskId
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
  /**
   * When the hold lapses (epoch ms): the task expiry sweep refunds a task's hold still open then,
   * and a provider report arriving later settles nothing (docs/decisions.md, "Late reports").
   */
  readonly expiresAt: number
  readonly settledAt: number | null
  /** What the reservation took from grants, in draw order; the rest came from other money. */
  readonly draws: ReadonlyArray<GrantDraw>
}

/** How long a hold lives when its reservation names no expiry: a day, as the task default. */
export const DEFAULT_HOLD_TTL_MS = 86_400_000

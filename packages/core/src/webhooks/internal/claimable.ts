/**
 * "Claimable": the deliveries the worker's claim takes. A delivery is claimable when it is pending
 * and due (`dueAt`, the state machine's own condition for `Claim`) and its endpoint is open, active
 * and not deleted. The memory store applies these; the SQL store's claim, next wake-up and due
 * backlog apply the same rule in SQL: `webhook_endpoint_open` (live text in migration 0017), the
 * view `webhook_claimable_deliveries` and `webhook_delivery_waiting` (live text in migration 0020,
 * with the claim `webhook_claim_due`).
 */
import { type DeliveryState, dueAt } from "../DeliveryState.js"

/** What the rule reads of an endpoint; `deletedAt` is null while it exists. */
export interface EndpointStanding {
  readonly active: boolean
  readonly deletedAt: number | null
}

/** An endpoint whose deliveries are claimed: present, active and not deleted. */
export const isEndpointOpen = (endpoint: EndpointStanding | undefined): boolean =>
  endpoint?.active === true && endpoint.deletedAt === null

/** When the delivery becomes claimable (possibly already past), or null if it will not as it stands. */
export const claimableAt = (delivery: DeliveryState, endpoint: EndpointStanding | undefined): number | null =>
  isEndpointOpen(endpoint) ? dueAt(delivery) : null

/** Whether the claim takes the delivery at `now`. */
export const isClaimable = (delivery: DeliveryState, endpoint: EndpointStanding | undefined, now: number): boolean => {
  const at = claimableAt(delivery, endpoint)
  return at !== null && at <= now
}

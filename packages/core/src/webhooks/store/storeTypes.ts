/**
 * Small types the webhook store ports share: an endpoint's key, what became of an endpoint, and
 * what the replay rule (replayRule.ts) reads and decides through the delivery log.
 */
import type { Either } from "effect"
import type { EndpointId, PartnerId } from "../../EntityIds.js"
import type { DeliveryState } from "../DeliveryState.js"

/** What became of an endpoint, as the replay rule reads it. */
export type EndpointCondition = "active" | "inactive" | "deleted"

/** An endpoint by its key. */
export interface EndpointKey {
  readonly partnerId: PartnerId
  readonly id: EndpointId
}

/** What a replay rule sees: the delivery's state and what became of its endpoint. */
export interface ReplaySnapshot {
  readonly delivery: DeliveryState
  readonly endpoint: EndpointCondition
}

/**
 * Bulk recovery's two halves of the replay rule (replayRule.ts): the endpoint's, whose failure is
 * the answer, then each delivery's, whose refusal leaves that delivery as it is.
 */
export interface RecoveryRules<E> {
  readonly endpoint: (endpoint: EndpointCondition) => Either.Either<void, E>
  readonly delivery: (snapshot: ReplaySnapshot) => Either.Either<DeliveryState, unknown>
}

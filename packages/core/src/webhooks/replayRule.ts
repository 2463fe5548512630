/**
 * The replay rule of spec "States → Webhook delivery" with the codes of "Machine codes for
 * replay": a delivery whose endpoint is gone or paused cannot be replayed, nor one that is
 * already queued or in flight; otherwise it goes back to `pending` with a fresh attempt budget
 * and the same eventId (docs/contract.md §5). Bulk recovery applies the endpoint's half once for
 * the endpoint, then `recoveryRule` to each delivery it requeues: the same rule, except that the
 * attempts go on counting (issue 23: "a new attempt now ... attempts continue to count").
 */
import { Either } from "effect"
import { type DeliveryState, transition } from "./DeliveryState.js"
import {
  DeliveryEndpointDeleted,
  DeliveryEndpointInactive,
  DeliveryNotReplayable,
  type EndpointReplayError,
  type ReplayError
} from "./WebhookError.js"
import type { EndpointCondition, ReplaySnapshot } from "./store/storeTypes.js"

/** The endpoint's half: its deliveries may be replayed only while it exists and is active. */
export const endpointReplayRule = (endpoint: EndpointCondition): Either.Either<void, EndpointReplayError> => {
  if (endpoint === "deleted")
    return Either.left(new DeliveryEndpointDeleted({ message: "the delivery's endpoint was deleted" }))
  if (endpoint === "inactive")
    return Either.left(
      new DeliveryEndpointInactive({ message: "the delivery's endpoint is inactive; activate it with PATCH first" })
    )
  return Either.void
}

const ruleOf =
  (input: { readonly _tag: "Replay" | "Recover" }) =>
  (now: number) =>
  (snap: ReplaySnapshot): Either.Either<DeliveryState, ReplayError> =>
    Either.flatMap(endpointReplayRule(snap.endpoint), () => {
      const t = transition(snap.delivery, input, now)
      return t._tag === "Moved"
        ? Either.right(t.state)
        : Either.left(new DeliveryNotReplayable({ message: `a ${snap.delivery.status} delivery cannot be replayed` }))
    })

/** A replayed delivery starts a fresh attempt budget. */
export const replayRule = ruleOf({ _tag: "Replay" })

/** A recovered dead-lettered or uncertain delivery gets one attempt now; its attempts go on counting. */
export const recoveryRule = ruleOf({ _tag: "Recover" })

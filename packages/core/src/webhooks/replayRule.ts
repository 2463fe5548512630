/**
 * The replay rule of spec "States → Webhook delivery" with the codes of "Machine codes for
 * replay": a delivery whose endpoint is gone or paused cannot be replayed, nor one that is
 * already queued or in flight; otherwise it goes back to `pending` with a fresh attempt budget
 * and the same eventId (docs/contract.md §5).
 */
import { Either } from "effect"
import { type DeliveryState, transition } from "./DeliveryState.js"
import {
  DeliveryEndpointDeleted,
  DeliveryEndpointInactive,
  DeliveryNotReplayable,
  type ReplayError
} from "./WebhookError.js"
import type { ReplaySnapshot } from "./WebhookStore.js"

export const replayRule =
  (now: number) =>
  (snap: ReplaySnapshot): Either.Either<DeliveryState, ReplayError> => {
    if (snap.endpoint === "deleted")
      return Either.left(new DeliveryEndpointDeleted({ message: "the delivery's endpoint was deleted" }))
    if (snap.endpoint === "inactive")
      return Either.left(
        new DeliveryEndpointInactive({ message: "the delivery's endpoint is inactive; activate it with PATCH first" })
      )
    const t = transition(snap.delivery, { _tag: "Replay" }, now)
    return t._tag === "Moved"
      ? Either.right(t.state)
      : Either.left(new DeliveryNotReplayable({ message: `a ${snap.delivery.status} delivery cannot be replayed` }))
  }

/**
 * What one attempt's outcome means for its delivery, as a pure function: the attempt row to
 * record (status code, readable error, timing) and the next state from the state machine.
 */
import { Either } from "effect"
import type { AttemptRecord, ClaimedDelivery, FinishedAttempt } from "../Delivery.js"
import { RECEIVER_TIMEOUT_MS, transition } from "../DeliveryState.js"
import { type AttemptOutcome, isSuccess } from "./WebhookTransport.js"

/** The status code and error text an attempt row records for an outcome. */
export const describeOutcome = (
  o: AttemptOutcome
): { readonly status: number | null; readonly error: string | null } => {
  switch (o._tag) {
    case "Answered":
      return {
        status: o.status,
        error: isSuccess(o)
          ? null
          : o.status >= 300 && o.status < 400
            ? `redirect ${o.status} (not followed)`
            : `HTTP ${o.status}`
      }
    case "TimedOut":
      return { status: null, error: `no answer within ${RECEIVER_TIMEOUT_MS / 1000} s` }
    case "ConnectionFailed":
      return { status: null, error: `connection failed: ${o.message}` }
    case "AddressRefused":
      return { status: null, error: `address refused: ${o.message}` }
  }
}

/**
 * The outcome of the attempt on `claim` that started at `startedAtMs` and ended at `finishedAtMs`,
 * ready to record; Left with the reason when the state machine refuses it (a claimed delivery is
 * always `delivering`, so that is a bug, not a runtime condition).
 */
export const finishedAttempt = (
  claim: ClaimedDelivery,
  outcome: AttemptOutcome,
  startedAtMs: number,
  finishedAtMs: number
): Either.Either<FinishedAttempt, string> => {
  const { status, error } = describeOutcome(outcome)
  const attempt: AttemptRecord = {
    attempt: claim.state.attempts,
    startedAt: startedAtMs,
    durationMs: finishedAtMs - startedAtMs,
    responseStatus: status,
    error,
    responseSnippet: outcome._tag === "Answered" ? (outcome.body ?? null) : null
  }
  // Retries are scheduled from the attempt's start, so a slow failure does not shift the schedule.
  const next = transition(claim.state, isSuccess(outcome) ? { _tag: "Succeeded" } : { _tag: "Failed" }, startedAtMs)
  return next._tag === "Rejected"
    ? Either.left(`claimed delivery ${claim.id} refused its outcome: ${next.reason}`)
    : Either.right({ claim, next: next.state, attempt, outcome: outcome._tag })
}

/**
 * Endpoint health as pure rules: what delivery outcomes do to an endpoint's record, and when an
 * endpoint that keeps failing is paused (docs/contract.md §5 "endpoint health"). The stores apply
 * `afterOutcomes` inside their outcome write (SQL: `webhook_finish_attempts`, migration 0019); the
 * delivery worker's sweep applies `disableForFailing`.
 */
import { DAY_MS, SECOND_MS } from "../timeUnits.js"

export type DisabledReason = "failing"

/** An endpoint's health: last success, failing since, disabled at and why. */
export interface EndpointHealth {
  /** When a delivery last succeeded (the answer's time, to within `SUCCESS_RESOLUTION_MS`). */
  readonly lastSuccessAt: number | null
  /** The first dead-letter after the last success; null while none. */
  readonly failingSince: number | null
  /** When the endpoint became inactive (paused by the partner or for failing); null while active. */
  readonly disabledAt: number | null
  /** `failing` when the health rule paused it; null otherwise. */
  readonly disabledReason: DisabledReason | null
  /**
   * Dead letters counted by the disable rule: those since the later of the last success and the
   * last change of the active flag, so an endpoint re-enabled by its partner gets a fresh span.
   */
  readonly strikes: number
  /** When the first of them dead-lettered; null when there are none. */
  readonly strikesSince: number | null
}

/** The health of a new endpoint. */
export const newEndpointHealth: EndpointHealth = {
  lastSuccessAt: null,
  failingSince: null,
  disabledAt: null,
  disabledReason: null,
  strikes: 0,
  strikesSince: null
}

/**
 * When an endpoint is paused for failing: its counted dead letters began `afterMs` ago or earlier
 * and number at least `minFailures`. Spec silent; the issue fixes 5 days and 10.
 */
export interface DisablePolicy {
  readonly afterMs: number
  readonly minFailures: number
}

export const defaultDisablePolicy: DisablePolicy = { afterMs: 5 * DAY_MS, minFailures: 10 }

/**
 * Successes this close after the recorded one leave the endpoint row alone: a busy endpoint's
 * row is written about once a second, not once per outcome write.
 */
export const SUCCESS_RESOLUTION_MS = SECOND_MS

/** A recorded outcome that matters to health: delivered, or dead-lettered; `at` is when its answer came. */
export interface HealthOutcome {
  readonly at: number
  readonly delivered: boolean
}

/**
 * The health after a batch of one endpoint's outcomes, or undefined when nothing needs writing.
 * Taken in time order: a success clears the failing span, a dead letter after the last success
 * starts it (or extends it). Dead letters before the batch's last success are forgotten.
 */
export const afterOutcomes = (
  health: EndpointHealth,
  outcomes: ReadonlyArray<HealthOutcome>
): EndpointHealth | undefined => {
  let successAt: number | null = null
  for (const o of outcomes) if (o.delivered && (successAt === null || o.at > successAt)) successAt = o.at
  const dead = outcomes.filter((o) => !o.delivered && (successAt === null || o.at > successAt)).map((o) => o.at)
  const deadFrom = dead.length === 0 ? null : Math.min(...dead)
  if (successAt === null)
    return dead.length === 0
      ? undefined
      : {
          ...health,
          failingSince: health.failingSince ?? deadFrom,
          strikes: health.strikes + dead.length,
          strikesSince: health.strikesSince ?? deadFrom
        }
  const unchanged =
    dead.length === 0 &&
    health.failingSince === null &&
    health.strikes === 0 &&
    health.lastSuccessAt !== null &&
    health.lastSuccessAt >= successAt - SUCCESS_RESOLUTION_MS
  if (unchanged) return undefined
  return {
    ...health,
    lastSuccessAt: Math.max(health.lastSuccessAt ?? successAt, successAt),
    failingSince: deadFrom,
    strikes: dead.length,
    strikesSince: deadFrom
  }
}

/** Whether the disable rule pauses an endpoint that is active with this health at `now`. */
export const meetsDisableRule = (health: EndpointHealth, policy: DisablePolicy, now: number): boolean =>
  health.strikes >= policy.minFailures && health.strikesSince !== null && health.strikesSince <= now - policy.afterMs

/**
 * The active flag changing: a pause records when and why (`reason` null: by the partner's hand);
 * a reactivation clears both. Either way the disable rule starts a new span (the failing span
 * itself stays: no delivery has succeeded since).
 */
export const afterActiveChange = (
  health: EndpointHealth,
  wasActive: boolean,
  active: boolean,
  now: number,
  reason: DisabledReason | null = null
): EndpointHealth => {
  if (wasActive === active) return health
  const fresh = { ...health, strikes: 0, strikesSince: null }
  return active
    ? { ...fresh, disabledAt: null, disabledReason: null }
    : { ...fresh, disabledAt: now, disabledReason: reason }
}

/** Whether two healths are the same (a store writes health only when it changed). */
export const sameHealth = (a: EndpointHealth, b: EndpointHealth): boolean =>
  a.lastSuccessAt === b.lastSuccessAt &&
  a.failingSince === b.failingSince &&
  a.disabledAt === b.disabledAt &&
  a.disabledReason === b.disabledReason &&
  a.strikes === b.strikes &&
  a.strikesSince === b.strikesSince

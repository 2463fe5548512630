/**
 * What the delivery worker reports as it works, for an embedder's metrics (the reference host
 * exports them to Prometheus: attempts by result and kind of answer, leases that ran out).
 *
 * Optional: without one the worker reports nothing. It is called once per outcome write and once
 * per sweep that expired leases or paused endpoints, never once per attempt, on the worker's own
 * fiber: keep it cheap.
 * It cannot fail; a report that dies is the observer's bug and is logged, not the worker's.
 */
import { Context, type Effect } from "effect"
import type { FinishedAttempt } from "./Delivery.js"
import type { WebhookEndpoint } from "./Endpoint.js"

export interface DeliveryObserverShape {
  /**
   * Attempts whose outcomes were just written. Not reported: a write that failed (those
   * deliveries stay with their leases and become `uncertain`, reported by `leasesExpired`) and an
   * outcome fenced off because its lease ran out first (already reported by `leasesExpired`; the
   * store kept `uncertain`). Each attempt is therefore reported once, as what the store holds.
   */
  readonly attemptsRecorded: (finished: ReadonlyArray<FinishedAttempt>) => Effect.Effect<void>
  /** How many deliveries a sweep just turned `uncertain`: their lease ran out mid-request. */
  readonly leasesExpired: (count: number) => Effect.Effect<void>
  /**
   * Endpoints a sweep just paused for failing (the health rule; each also emitted
   * `webhook.endpoint.disabled`). Optional, so observers written before it keep compiling.
   */
  readonly endpointsDisabled?: (endpoints: ReadonlyArray<WebhookEndpoint>) => Effect.Effect<void>
}

/** Hears what the delivery worker does (attempts, pauses), for metrics. */
export class DeliveryObserver extends Context.Tag("@frank/core/DeliveryObserver")<
  DeliveryObserver,
  DeliveryObserverShape
>() {}

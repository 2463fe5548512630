/** The delivery worker's settings: its limits, each with its unit. */
import { RECEIVER_TIMEOUT_MS } from "../DeliveryState.js"
import { type DisablePolicy, defaultDisablePolicy } from "../EndpointHealth.js"

export interface DeliveryWorkerConfig {
  /** Attempts in flight at once. */
  readonly concurrency: number
  /** Deliveries claimed per query. */
  readonly batchSize: number
  /**
   * How long a claim holds a delivery. Longer than the receiver timeout plus slack: it runs out
   * only when the worker died (or stalled) mid-request, and the delivery then becomes uncertain.
   */
  readonly leaseMs: number
  /** Fallback when no signal arrives (another instance's event without NOTIFY, clock drift). */
  readonly pollIntervalMs: number
  /** On shutdown, how long in-flight attempts may take to finish before they are abandoned. */
  readonly drainMs: number
  /**
   * How often expired leases (they matter only after a worker died), ended rotation windows and
   * unfinished deletions (only after a host stopped mid-deletion) are looked for.
   */
  readonly sweepIntervalMs?: number
  /**
   * When the sweep pauses an endpoint that keeps failing (EndpointHealth.ts); `false`: never.
   * Default `defaultDisablePolicy`: 5 days and at least 10 dead letters.
   */
  readonly disableFailing?: DisablePolicy | false
}

export const defaultWorkerConfig: DeliveryWorkerConfig = {
  concurrency: 64,
  batchSize: 64,
  leaseMs: 60_000,
  pollIntervalMs: 1_000,
  drainMs: RECEIVER_TIMEOUT_MS + 2_000,
  sweepIntervalMs: 1_000,
  disableFailing: defaultDisablePolicy
}

/** Outcomes written per statement at most; also how many may wait for the writer before claims pause. */
export const MAX_WRITE_BATCH = 256

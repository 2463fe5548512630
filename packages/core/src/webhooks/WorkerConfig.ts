/** The delivery worker's settings: its limits, each with its unit, and the check they pass at start. */
import { Either, Schema } from "effect"
import { codedErrorFields } from "../codedError.js"
import { RECEIVER_TIMEOUT_MS } from "./DeliveryState.js"
import { type DisablePolicy, defaultDisablePolicy } from "./EndpointHealth.js"

/** The delivery worker's settings. */
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

/** The delivery worker's defaults (concurrency, batch, lease, timeouts, disabling). */
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

/** A worker configuration that cannot work; building `DeliveryWorker.layer` fails with it. */
export class DeliveryWorkerConfigError extends Schema.TaggedError<DeliveryWorkerConfigError>()(
  "DeliveryWorkerConfigError",
  { ...codedErrorFields("WORKER_CONFIG_INVALID", 500), field: Schema.String }
) {}

const positiveInteger = (n: number) => Number.isSafeInteger(n) && n > 0
const positive = (n: number) => Number.isFinite(n) && n > 0

/** The first wrong setting, or none. Pure: the layer runs it once, before the worker exists. */
const firstProblem = (c: DeliveryWorkerConfig): { field: string; problem: string } | undefined => {
  if (!positiveInteger(c.concurrency)) return { field: "concurrency", problem: "must be a positive integer" }
  if (!positiveInteger(c.batchSize)) return { field: "batchSize", problem: "must be a positive integer" }
  // A lease that ends while its attempt may still be waiting for the receiver hands the delivery
  // to another claim mid-request: it would be sent twice and recorded as uncertain.
  if (!(Number.isFinite(c.leaseMs) && c.leaseMs > RECEIVER_TIMEOUT_MS))
    return { field: "leaseMs", problem: `must exceed the receiver timeout (${RECEIVER_TIMEOUT_MS} ms)` }
  if (!positive(c.pollIntervalMs)) return { field: "pollIntervalMs", problem: "must be positive" }
  if (!(Number.isFinite(c.drainMs) && c.drainMs >= 0)) return { field: "drainMs", problem: "must not be negative" }
  if (c.sweepIntervalMs !== undefined && !positive(c.sweepIntervalMs))
    return { field: "sweepIntervalMs", problem: "must be positive" }
  const policy = c.disableFailing
  if (policy !== undefined && policy !== false) {
    if (!positive(policy.afterMs)) return { field: "disableFailing.afterMs", problem: "must be positive" }
    if (!positiveInteger(policy.minFailures))
      return { field: "disableFailing.minFailures", problem: "must be a positive integer" }
  }
  return undefined
}

/** `config` when it can work, else the error naming the first wrong setting and its value. */
export const checkWorkerConfig = (
  config: DeliveryWorkerConfig
): Either.Either<DeliveryWorkerConfig, DeliveryWorkerConfigError> => {
  const found = firstProblem(config)
  if (found === undefined) return Either.right(config)
  const value = found.field.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], config)
  return Either.left(
    new DeliveryWorkerConfigError({
      field: found.field,
      message: `delivery worker: ${found.field} ${found.problem}, got ${String(value)}`
    })
  )
}

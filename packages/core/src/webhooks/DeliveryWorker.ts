/**
 * The delivery worker: claims due deliveries (SKIP LOCKED on SQL, so several instances share the
 * work), sends each attempt through the transport, and records the outcome through the pure
 * state machine. It wakes on a signal (an event committed, a replay, slots freed), at the next due
 * time, or at the poll interval, whichever comes first.
 *
 * Two ways to drive it: `run` is the long-lived loop a host forks (internal/worker/run.ts: claim loop,
 * answer collector, outcome writer, drain); `runDue` performs everything due at the current
 * instant and returns, which is what simulations under TestClock step with (internal/worker/runDue.ts).
 *
 * Its sweep also applies the endpoint-health rule (`config.disableFailing`), whose pause emits
 * through the Outbox: the layer needs the Outbox the engine's services share.
 */
import { Clock, Context, Effect, Layer, Ref } from "effect"
import { Ids } from "../internal/ids.js"
import type { StoreError } from "../StoreError.js"
import { DeliveryWakeup } from "../events/DeliveryWakeup.js"
import { Outbox } from "../events/Outbox.js"
import { defaultDisablePolicy } from "./EndpointHealth.js"
import { DeliveryQueue, type DueBacklog } from "./store/DeliveryQueue.js"
import { WebhookTransport } from "./transport/WebhookTransport.js"
import { disableFailing, nextDisableAt } from "./internal/worker/disableFailing.js"
import { recordOutcomes } from "./internal/worker/recordOutcomes.js"
import { makeReports } from "./internal/worker/reports.js"
import { run } from "./internal/worker/run.js"
import { runDue } from "./internal/worker/runDue.js"
import { sweep } from "./internal/worker/sweep.js"
import { checkWorkerConfig, type DeliveryWorkerConfig, defaultWorkerConfig } from "./WorkerConfig.js"
import type { WorkerParts } from "./internal/worker/WorkerParts.js"

export {
  checkWorkerConfig,
  type DeliveryWorkerConfig,
  DeliveryWorkerConfigError,
  defaultWorkerConfig
} from "./WorkerConfig.js"

export interface DeliveryWorkerShape {
  /** Loops until interrupted; on interruption, lets in-flight attempts finish (up to `drainMs`). */
  readonly run: Effect.Effect<never, StoreError>
  /** Sweeps (expired leases, ended rotation windows, unfinished deletions, endpoints failing long enough) and delivers everything due now, waiting for those attempts; answers how many were attempted. */
  readonly runDue: Effect.Effect<number, StoreError>
  /** The next instant something is due (an attempt, a lease end, a rotation window's end, a failing endpoint's pause), if any; unfinished deletions have no deadline and wait for any sweep. */
  readonly nextWakeAt: Effect.Effect<number | undefined, StoreError>
  /** How far behind the workers are at `now`, across all partners: for an operator's gauges. */
  readonly dueBacklog: (now: number) => Effect.Effect<DueBacklog, StoreError>
}

const earliest = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b)

/** The delivery worker: claims due deliveries, sends them and records the outcomes. */
export class DeliveryWorker extends Context.Tag("@frank/core/DeliveryWorker")<DeliveryWorker, DeliveryWorkerShape>() {
  /** The delivery worker with this configuration (checked when the layer is built). */
  static readonly layer = (config: DeliveryWorkerConfig = defaultWorkerConfig) =>
    Layer.effect(
      DeliveryWorker,
      Effect.gen(function* () {
        // A wiring mistake stops the start here, before the worker claims anything.
        yield* checkWorkerConfig(config)
        const store = yield* DeliveryQueue
        const reports = yield* makeReports
        // One token per claim statement (this instance's id and a count), not one per instance: an
        // outcome is recorded only while its own claim holds the row, so it is fenced against every
        // later claim of the delivery, this instance's included.
        const instanceToken = yield* (yield* Ids).next
        const claimsMade = yield* Ref.make(0)
        const outbox = yield* Outbox
        const policy = config.disableFailing ?? defaultDisablePolicy
        const healthCheck = policy === false ? Effect.void : disableFailing(store, outbox, policy, reports)
        const parts: WorkerParts = {
          config,
          store,
          transport: yield* WebhookTransport,
          wakeup: yield* DeliveryWakeup,
          claim: (limit) =>
            Effect.flatMap(
              Effect.zip(
                Clock.currentTimeMillis,
                Ref.updateAndGet(claimsMade, (n) => n + 1)
              ),
              ([now, n]) => store.claimDue(now, config.leaseMs, limit, `${instanceToken}/${n}`)
            ),
          markSent: (claims) => Effect.flatMap(Clock.currentTimeMillis, (now) => store.markSent(claims, now)),
          record: recordOutcomes(store, reports),
          sweep: Effect.zipRight(sweep(store, reports), healthCheck),
          healthCheck
        }
        return {
          run: run(parts),
          runDue: runDue(parts),
          nextWakeAt:
            policy === false
              ? store.nextWakeAt()
              : Effect.zipWith(store.nextWakeAt(), nextDisableAt(store, policy), earliest),
          dueBacklog: (now) => store.dueBacklog(now)
        }
      })
    )
}

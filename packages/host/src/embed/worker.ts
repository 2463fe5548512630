/**
 * The background work of an embedded Frank, started and stopped by the embedder
 * (`frank.worker.start()` / `stop()`): the host's own delivery worker, retention sweep and the
 * expiry sweeps of bonus grants and task holds, built in a scope of its own so stopping it lets
 * in-flight deliveries finish and leaves the engine running. Without it grants never expire and
 * holds never lapse, as webhooks are never delivered.
 */
import { Effect, Exit, Layer, type ManagedRuntime, Scope } from "effect"
import { deliveryWorkerLayer } from "../workers/deliveryWorker.js"
import { grantExpirySweeperLayer } from "../workers/grantExpirySweeper.js"
import { retentionSweeperLayer } from "../workers/retentionSweeper.js"
import { taskExpirySweeperLayer } from "../workers/taskExpirySweeper.js"

/** Start and stop of the worker. */
export interface FrankWorker {
  /**
   * Starts delivering webhooks in this process (and, on PostgreSQL, listening for other
   * processes' and your commits' notifications), sweeping retention, and expiring due bonus
   * grants and task holds. Starting a running worker does nothing.
   */
  start(): Promise<void>
  /** Stops claiming; in-flight deliveries finish first. Stopping a stopped worker does nothing. */
  stop(): Promise<void>
  /** Whether the worker runs. */
  readonly running: boolean
}

type WorkerNeeds =
  | Layer.Layer.Context<ReturnType<typeof deliveryWorkerLayer>>
  | Layer.Layer.Context<typeof retentionSweeperLayer>
  | Layer.Layer.Context<typeof grantExpirySweeperLayer>
  | Layer.Layer.Context<typeof taskExpirySweeperLayer>

/** The worker over `runtime`; `listen` on PostgreSQL, skipping this instance's own NOTIFYs. */
export const makeWorker = (
  runtime: ManagedRuntime.ManagedRuntime<WorkerNeeds, unknown>,
  options: { readonly listen: boolean; readonly isOwnNotification: (payload: string) => boolean }
): FrankWorker => {
  let scope: Scope.CloseableScope | undefined
  const layer = Layer.mergeAll(
    deliveryWorkerLayer(options),
    retentionSweeperLayer,
    grantExpirySweeperLayer,
    taskExpirySweeperLayer
  )
  return {
    get running() {
      return scope !== undefined
    },
    start: async () => {
      if (scope !== undefined) return
      const opened = Effect.runSync(Scope.make())
      scope = opened
      await runtime.runPromise(Layer.buildWithScope(layer, opened)).catch(async (e) => {
        scope = undefined
        await Effect.runPromise(Scope.close(opened, Exit.void))
        throw e
      })
    },
    stop: async () => {
      const opened = scope
      if (opened === undefined) return
      scope = undefined
      await runtime.runPromise(Scope.close(opened, Exit.void))
    }
  }
}

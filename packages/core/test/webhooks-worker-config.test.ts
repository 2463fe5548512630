/**
 * The worker's configuration is checked when its layer is built: a lease no longer than the
 * receiver timeout (and other settings that cannot work) stops the start with a typed error
 * naming the setting, before the worker exists.
 */
import { describe, expect, it } from "@effect/vitest"
import { Webhooks } from "@frank/core"
import { MemoryWebhookStore, ScriptedReceiver } from "@frank/core/testing"
import { Effect, Either, Exit } from "effect"
import { RECEIVER_TIMEOUT_MS } from "../src/webhooks/DeliveryState.js"
import { checkWorkerConfig } from "../src/webhooks/WorkerConfig.js"
import { workerEngine } from "./support/workerEngine.js"

const build = (config: Webhooks.DeliveryWorkerConfig) =>
  Effect.exit(
    Effect.provide(
      Effect.flatMap(Webhooks.DeliveryWorker, () => Effect.void),
      workerEngine(config, MemoryWebhookStore.layer, ScriptedReceiver.layer(200))
    )
  )

const failureOf = (exit: Exit.Exit<void, unknown>) =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined

describe("DeliveryWorker configuration", () => {
  it.effect("a lease that does not exceed the receiver timeout stops the layer with a typed error", () =>
    Effect.gen(function* () {
      const error = failureOf(yield* build({ ...Webhooks.defaultWorkerConfig, leaseMs: RECEIVER_TIMEOUT_MS }))
      expect(error).toBeInstanceOf(Webhooks.DeliveryWorkerConfigError)
      expect(error).toMatchObject({ field: "leaseMs", code: "WORKER_CONFIG_INVALID" })
      expect((error as Webhooks.DeliveryWorkerConfigError).message).toBe(
        `delivery worker: leaseMs must exceed the receiver timeout (${RECEIVER_TIMEOUT_MS} ms), got ${RECEIVER_TIMEOUT_MS}`
      )
    })
  )

  it.effect("the default configuration builds", () =>
    Effect.gen(function* () {
      expect(Exit.isSuccess(yield* build(Webhooks.defaultWorkerConfig))).toBe(true)
      expect(Exit.isSuccess(yield* build({ ...Webhooks.defaultWorkerConfig, leaseMs: RECEIVER_TIMEOUT_MS + 1 }))).toBe(
        true
      )
    })
  )

  it("names each setting that cannot work", () => {
    const fieldOf = (patch: Partial<Webhooks.DeliveryWorkerConfig>) =>
      Either.match(checkWorkerConfig({ ...Webhooks.defaultWorkerConfig, ...patch }), {
        onLeft: (e) => e.field,
        onRight: () => "ok"
      })
    expect(fieldOf({ concurrency: 0 })).toBe("concurrency")
    expect(fieldOf({ concurrency: 2.5 })).toBe("concurrency")
    expect(fieldOf({ batchSize: -1 })).toBe("batchSize")
    expect(fieldOf({ leaseMs: Number.NaN })).toBe("leaseMs")
    expect(fieldOf({ pollIntervalMs: 0 })).toBe("pollIntervalMs")
    expect(fieldOf({ drainMs: -5 })).toBe("drainMs")
    expect(fieldOf({ drainMs: 0 })).toBe("ok")
    expect(fieldOf({ sweepIntervalMs: 0 })).toBe("sweepIntervalMs")
    expect(fieldOf({ disableFailing: { afterMs: 0, minFailures: 10 } })).toBe("disableFailing.afterMs")
    expect(fieldOf({ disableFailing: { afterMs: 1, minFailures: 0 } })).toBe("disableFailing.minFailures")
    expect(fieldOf({ disableFailing: false })).toBe("ok")
  })
})

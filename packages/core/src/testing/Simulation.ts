/**
 * The simulation kit: a whole engine on memory stores (or any stores you provide) with a scripted
 * receiver, driven under TestClock. `advance` moves the clock to every instant something is due
 * (an attempt, a lease end, a retention sweep that will remove something, a grant's expiry, a
 * task hold that lapses) and runs the grant expiry, the task expiry, the worker and the retention
 * sweep there, so a full 8 h 36 min retry schedule runs in milliseconds with exact attempt times,
 * and a month of retention in a few steps. The task expiry sweep runs when the engine has one
 * (`TaskExpiry`; `Simulation.layer` built over it).
 */
import { Clock, Context, Duration, Effect, Layer, Option, Redacted, TestClock } from "effect"
import type { Access } from "../access/Access.js"
import { Secrets } from "../access/Secrets.js"
import { Ids } from "../internal/ids.js"
import { Ledger } from "../ledger/Ledger.js"
import { GrantExpiry } from "../ledger/GrantExpiry.js"
import type { LedgerStore } from "../ledger/LedgerStore.js"
import type { StoreError } from "../StoreError.js"
import { DeliveryWakeup } from "../events/DeliveryWakeup.js"
import { DeliveryWorker, defaultWorkerConfig } from "../webhooks/DeliveryWorker.js"
import { type DisablePolicy, defaultDisablePolicy } from "../webhooks/EndpointHealth.js"
import { Outbox } from "../events/Outbox.js"
import { Webhooks } from "../webhooks/Webhooks.js"
import { type RetentionConfig, WebhookRetention, defaultRetentionConfig } from "../webhooks/WebhookRetention.js"
import { WebhookSettings } from "../webhooks/WebhookSettings.js"
import type { WebhookStores } from "../webhooks/store/WebhookStores.js"
import type { EventStore } from "../events/EventStore.js"
import type { TariffStore } from "../tariff/TariffStore.js"
import { TaskExpiry } from "../tasks/TaskExpiry.js"

/** The stores an engine runs on: what `MemoryLedgerStore` and `MemoryWebhookStore` (or their SQL twins) provide. */
export type EngineStores = LedgerStore | TariffStore | WebhookStores | EventStore
import { MemoryLedgerStore } from "./MemoryLedgerStore.js"
import * as MemoryWebhookStore from "./webhooks/MemoryWebhookStore.js"
import { type ScriptedAnswer, ScriptedReceiver } from "./ScriptedReceiver.js"

/** At most this many worker steps per `advance`: a guard against a store that never stops being due. */
const MAX_STEPS_PER_ADVANCE = 100_000

export interface SimulationShape {
  /** Moves TestClock forward by `duration`, running the worker at every instant something falls due. */
  readonly advance: (duration: Duration.DurationInput) => Effect.Effect<void, StoreError>
  /** Runs the worker (and a retention sweep, when one is due) for what is due at the current instant. */
  readonly runDue: Effect.Effect<number, StoreError>
}

const earliest = (a: number | undefined, b: number | undefined) =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b)

/** Drives a simulated engine under TestClock: advances time and runs due attempts. */
export class Simulation extends Context.Tag("@frank/core/testing/Simulation")<Simulation, SimulationShape>() {
  static readonly layer = Layer.effect(
    Simulation,
    Effect.gen(function* () {
      const worker = yield* DeliveryWorker
      // Optional, so an engine assembled without retention or tasks still simulates.
      const retention = yield* Effect.serviceOption(WebhookRetention)
      const grantExpiry = yield* Effect.serviceOption(GrantExpiry)
      const expiry = yield* Effect.serviceOption(TaskExpiry)
      const none: Effect.Effect<number | undefined, StoreError> = Effect.succeed(undefined)
      // Grants expire first, then task holds: the events they emit are then due for the worker at
      // the same instant.
      const expireGrants: Effect.Effect<void, StoreError> = Option.isSome(grantExpiry)
        ? grantExpiry.value.sweep
        : Effect.void
      const expireTasks: Effect.Effect<void, StoreError> = Option.isSome(expiry)
        ? Effect.asVoid(expiry.value.sweepDue)
        : Effect.void
      const retain: Effect.Effect<void, StoreError> = Option.isSome(retention)
        ? Effect.asVoid(retention.value.sweepDue)
        : Effect.void
      const runDue = Effect.zipLeft(Effect.zipRight(Effect.zipRight(expireGrants, expireTasks), worker.runDue), retain)
      const nextWakeAt = Effect.zipWith(
        Effect.zipWith(
          Effect.zipWith(worker.nextWakeAt, Option.isSome(retention) ? retention.value.nextSweepAt : none, earliest),
          Option.isSome(expiry) ? expiry.value.nextSweepAt : none,
          earliest
        ),
        Option.isSome(grantExpiry) ? grantExpiry.value.nextSweepAt : none,
        earliest
      )
      const advance: SimulationShape["advance"] = (duration) =>
        Effect.gen(function* () {
          const target = (yield* Clock.currentTimeMillis) + Duration.toMillis(duration)
          for (let step = 0; step < MAX_STEPS_PER_ADVANCE; step++) {
            yield* runDue
            const now = yield* Clock.currentTimeMillis
            const next = yield* nextWakeAt
            if (next === undefined || next > target) break
            // runDue handled everything due at `now`; a wake time not after it would never progress.
            if (next <= now)
              return yield* Effect.dieMessage(
                `simulation stuck at ${now}: the store reports work due at ${next} that the worker does not take`
              )
            yield* TestClock.setTime(next)
          }
          yield* TestClock.setTime(target)
          yield* runDue
        })
      return { advance, runDue }
    })
  )
}

export interface SimulationOptions {
  /** The receiver's answer once a URL's script is used up. Default 200. */
  readonly defaultAnswer?: ScriptedAnswer
  /** Stores to run on; default memory. Provide SQL stores (e.g. on PGlite) to simulate on them. */
  readonly stores?: Layer.Layer<EngineStores, unknown>
  /** How long events and finished deliveries are kept; default DEFAULT_RETENTION_DAYS (30). */
  readonly retentionDays?: number
  /** How often retention sweeps and how many rows a statement removes; default as in a host. */
  readonly retention?: RetentionConfig
  /** The endpoint-health rule; default `defaultDisablePolicy` (5 days, 10 dead letters); `false`: never pause. */
  readonly disableFailing?: DisablePolicy | false
}

/**
 * Everything an integration test needs: Ledger, Access-free webhooks (Webhooks, Outbox), the
 * DeliveryWorker, WebhookRetention, the ScriptedReceiver and Simulation. Deterministic ids;
 * private URLs allowed so scripted URLs like `https://receiver.test/hook` need no DNS.
 */
export const SimulationEngine = (options: SimulationOptions = {}) => {
  const stores = options.stores ?? Layer.mergeAll(MemoryLedgerStore, MemoryWebhookStore.layer)
  const base = Layer.mergeAll(
    Ids.layerDeterministic("frank-simulation"),
    Secrets.layer(Redacted.make("simulation-pepper")),
    DeliveryWakeup.layer,
    WebhookSettings.layer({ allowPrivateNetwork: true, retentionDays: options.retentionDays }),
    ScriptedReceiver.layer(options.defaultAnswer ?? 200)
  )
  const outbox = Outbox.layer
  const worker = DeliveryWorker.layer({
    ...defaultWorkerConfig,
    disableFailing: options.disableFailing ?? defaultDisablePolicy
  })
  const services = Layer.mergeAll(
    GrantExpiry.layer().pipe(Layer.provideMerge(Ledger.layer)),
    Webhooks.layer,
    worker,
    WebhookRetention.layer(options.retention ?? defaultRetentionConfig)
  ).pipe(Layer.provideMerge(outbox))
  return Simulation.layer.pipe(Layer.provideMerge(services), Layer.provideMerge(stores), Layer.provideMerge(base))
}

// Access is not part of the simulation: it is about HTTP credentials, not delivery behaviour.
export type { Access }

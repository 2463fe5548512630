/**
 * `createFrankSimulation`: the simulation kit (`@frank/core/testing`) through Promises, for
 * webhook flows tested from plain vitest or jest. The engine runs on memory stores under
 * TestClock; `advance` moves the clock and runs every attempt that falls due, so a whole retry
 * schedule takes milliseconds and the attempts' times are exact.
 */
import type { WebhookReceiver } from "@frank/core"
import {
  type ReceivedRequest,
  type ScriptedAnswer,
  ScriptedReceiver,
  Simulation,
  SimulationEngine,
  verifyReceived
} from "@frank/core/testing"
import { type Duration, Effect, Layer, ManagedRuntime, TestClock, TestContext } from "effect"
import { type FrankLedger, makeLedgerApi } from "./ledgerApi.js"
import { type Run, runOn } from "./run.js"
import { type FrankDeliveries, type FrankEndpoints, makeWebhooksApi } from "./webhooksApi.js"

/** A simulated Frank: ledger and webhooks, a scripted receiver, and the clock. */
export interface FrankSimulation {
  /** The ledger, as `frank.ledger`. */
  readonly ledger: FrankLedger
  /** Webhook endpoints, as `frank.endpoints`. */
  readonly endpoints: FrankEndpoints
  /** Deliveries, as `frank.deliveries`. */
  readonly deliveries: FrankDeliveries
  /** The receiver every endpoint URL reaches. */
  readonly receiver: {
    /** Answers the next requests to `url` in order: a status, `"timeout"`, `"crash"`, `"connection-error"`. */
    script(url: string, answers: ReadonlyArray<ScriptedAnswer>): Promise<void>
    /** Requests that reached the receiver, oldest first, with their exact times (`at`, epoch ms). */
    received(): Promise<ReadonlyArray<ReceivedRequest>>
  }
  /** Moves the clock forward (`"1 hour"`, milliseconds), running every attempt that falls due. */
  advance(duration: Duration.DurationInput): Promise<void>
  /** Verifies a received request's signature with the endpoint's secret, as your receiver would. */
  verifyReceived(request: ReceivedRequest, secret: string): Promise<WebhookReceiver.VerifyResult>
  /** Releases the simulation. */
  close(): Promise<void>
}

/** Starts a simulation with the clock at `start` (epoch ms or a Date; default 0). */
export const createFrankSimulation = async (
  options: { readonly start?: number | Date } = {}
): Promise<FrankSimulation> => {
  const runtime = ManagedRuntime.make(SimulationEngine().pipe(Layer.provideMerge(TestContext.TestContext)))
  const start = options.start instanceof Date ? options.start.getTime() : (options.start ?? 0)
  await runtime.runPromise(TestClock.setTime(start))
  // The simulation offers the ledger and webhook services the two APIs use, nothing else.
  const run = runOn(runtime as never) as Run
  const { endpoints, deliveries } = makeWebhooksApi(run)
  return {
    ledger: makeLedgerApi(run),
    endpoints,
    deliveries,
    receiver: {
      script: (url, answers) => runtime.runPromise(Effect.flatMap(ScriptedReceiver, (r) => r.script(url, answers))),
      received: () => runtime.runPromise(Effect.flatMap(ScriptedReceiver, (r) => r.received))
    },
    advance: (duration) => run(Effect.flatMap(Simulation, (s) => s.advance(duration)) as never),
    verifyReceived: (request, secret) => runtime.runPromise(verifyReceived(request, secret)),
    close: () => runtime.dispose()
  }
}

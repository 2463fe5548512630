/**
 * How a Promise API method runs its effect: on the engine's ManagedRuntime, its failure turned
 * into a FrankError. A bound API (`inTransaction`, `transaction`) runs the same effects through a
 * `Run` that first puts them on the caller's connection.
 */
import { Effect, Exit, type ManagedRuntime } from "effect"
import type { EngineServices } from "../engine.js"
import { fromCause } from "./FrankError.js"

/** Runs an engine effect as a Promise that rejects with FrankError. */
export type Run = <A, E>(effect: Effect.Effect<A, E, EngineServices>) => Promise<A>

/** A `Run` on `runtime`. */
export const runOn =
  (runtime: ManagedRuntime.ManagedRuntime<EngineServices, unknown>): Run =>
  (effect) =>
    runtime.runPromiseExit(effect).then((exit) => {
      if (Exit.isSuccess(exit)) return exit.value
      throw fromCause(exit.cause)
    })

/** A `Run` that transforms every effect before running it on `run` (binds it to a connection). */
export const runThrough =
  (
    run: Run,
    through: <A, E>(effect: Effect.Effect<A, E, EngineServices>) => Effect.Effect<A, E, EngineServices>
  ): Run =>
  (effect) =>
    run(Effect.suspend(() => through(effect)))

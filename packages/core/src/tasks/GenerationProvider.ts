/**
 * The port to whatever actually generates: a model vendor's API, a render farm, or the sandbox.
 *
 * The engine hands a task over once it is stored and its funds are reserved; the provider reports
 * what happens through the `report` callback it is given (started, succeeded with an output and
 * the actual cost, failed with a reason). Reports may come twice or out of order: the task state
 * machine absorbs them, so settlement happens exactly once whatever the provider does.
 */
import { Context, type Effect, Schema } from "effect"
import type { Task } from "./Task.js"
import type { TaskOutcome } from "./TaskState.js"

/** Records an outcome of the task the callback was made for. Failures are logged by the engine. */
export type TaskReporter = (outcome: TaskOutcome) => Effect.Effect<void>

/** The provider refused the task outright; the engine fails it with this reason and refunds. */
export class ProviderRejected extends Schema.TaggedError<ProviderRejected>()("ProviderRejected", {
  code: Schema.String,
  message: Schema.String
}) {}

export interface GenerationProviderShape {
  /**
   * Takes a launched task and returns without waiting for the generation. Called again for
   * unfinished tasks after a host restart, so a provider must accept a task it already has.
   */
  readonly submit: (task: Task, report: TaskReporter) => Effect.Effect<void, ProviderRejected>
}

/** Port: the provider that runs generation tasks (a sandbox in adapters). */
export class GenerationProvider extends Context.Tag("@frank/core/GenerationProvider")<
  GenerationProvider,
  GenerationProviderShape
>() {}

/**
 * The sandbox generation provider: takes every task, reports it running at once, and — unless
 * auto-completion is off — reports it succeeded after a fixed delay with a small real output
 * (render.ts). The operator's admin controls (`POST /admin/v1/sandbox/tasks/{id}/succeed|fail`)
 * finish a task at any moment through the same outcomes; whichever report comes first settles
 * it, the other is refused by the task state machine.
 *
 * Delays run on Effect's Clock, so TestClock drives them in tests.
 */
import { Context, Duration, Effect, Layer } from "effect"
import { type Money, Tasks } from "@frank/core"
import { renderSandboxOutput } from "./internal/render.js"

export interface SandboxGenerationOptions {
  /** How long a task runs before it succeeds by itself; undefined: until an admin control ends it. */
  readonly autoCompleteAfter: Duration.DurationInput | undefined
}

export interface SandboxFailure {
  readonly code?: string | undefined
  readonly message?: string | undefined
}

export const SANDBOX_FAILURE_CODE = "SANDBOX_FAILED"

/** What the admin controls report for a task. */
export class SandboxGeneration extends Context.Tag("@frank/adapters/SandboxGeneration")<
  SandboxGeneration,
  {
    /** Success with the rendered output; `costMinor` omitted: the reserved amount. */
    readonly succeeded: (task: Tasks.Task, costMinor?: Money.Minor | undefined) => Tasks.TaskOutcome
    readonly failed: (task: Tasks.Task, failure?: SandboxFailure) => Tasks.TaskOutcome
    readonly autoCompleteAfter: Duration.Duration | undefined
  }
>() {}

const succeeded = (task: Tasks.Task, costMinor?: Money.Minor | undefined): Tasks.TaskOutcome =>
  costMinor === undefined
    ? { _tag: "Succeeded", output: renderSandboxOutput(task) }
    : { _tag: "Succeeded", output: renderSandboxOutput(task), costMinor }

const failed = (task: Tasks.Task, failure: SandboxFailure = {}): Tasks.TaskOutcome => ({
  _tag: "Failed",
  failure: {
    code: failure.code ?? SANDBOX_FAILURE_CODE,
    message: failure.message ?? `sandbox task ${task.id} failed by the operator's control`
  }
})

/** The provider and the admin controls' outcomes. Runs task fibers in the layer's scope. */
export const layerWith = (
  options: SandboxGenerationOptions
): Layer.Layer<Tasks.GenerationProvider | SandboxGeneration> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const scope = yield* Effect.scope
      const delay = options.autoCompleteAfter === undefined ? undefined : Duration.decode(options.autoCompleteAfter)
      const provider = Tasks.GenerationProvider.of({
        submit: (task, report) => {
          const run = Effect.gen(function* () {
            yield* report({ _tag: "Started" })
            if (delay === undefined) return
            yield* Effect.sleep(delay)
            yield* report(succeeded(task))
          })
          // Its own fiber in the provider's scope: the launch answers at once, and host shutdown
          // interrupts the pending timers (unfinished tasks are handed over again at the next start).
          return Effect.asVoid(Effect.forkIn(run, scope))
        }
      })
      return Context.make(Tasks.GenerationProvider, provider).pipe(
        Context.add(SandboxGeneration, { succeeded, failed, autoCompleteAfter: delay })
      )
    })
  )

/** The provider whose tasks wait for the admin controls (no auto-completion). */
export const layer: Layer.Layer<Tasks.GenerationProvider | SandboxGeneration> = layerWith({
  autoCompleteAfter: undefined
})

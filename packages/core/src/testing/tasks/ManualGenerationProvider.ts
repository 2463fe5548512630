/**
 * A generation provider for tests and simulations that generates nothing by itself: it keeps
 * every task handed to it with the callback to report through, so a test decides when and how
 * each task ends (`report`), reports twice, or makes the provider refuse the next task.
 */
import { Context, Effect, Layer, Option, Ref } from "effect"
import { GenerationProvider, ProviderRejected, type TaskReporter } from "../../tasks/GenerationProvider.js"
import type { Task } from "../../tasks/Task.js"
import type { TaskOutcome } from "../../tasks/TaskState.js"

/** Drives a manual generation provider: tests decide when tasks start, succeed or fail. */
export class ManualGeneration extends Context.Tag("@frank/core/testing/ManualGeneration")<
  ManualGeneration,
  {
    /** Tasks handed over, in order (a resubmitted task appears again). */
    readonly submitted: Effect.Effect<ReadonlyArray<Task>>
    /** Reports through the callback the provider got for the task; fails when it never got the task. */
    readonly report: (taskId: string, outcome: TaskOutcome) => Effect.Effect<void, Error>
    /** The next submission is refused with this code and message. */
    readonly rejectNext: (code: string, message: string) => Effect.Effect<void>
  }
>() {}

/** A generation provider driven by ManualGeneration. */
export const ManualGenerationProvider: Layer.Layer<GenerationProvider | ManualGeneration> = Layer.effectContext(
  Effect.gen(function* () {
    const submitted = yield* Ref.make<ReadonlyArray<{ readonly task: Task; readonly report: TaskReporter }>>([])
    const rejection = yield* Ref.make(Option.none<{ readonly code: string; readonly message: string }>())
    const provider = GenerationProvider.of({
      submit: (task, report) =>
        Effect.flatMap(Ref.getAndSet(rejection, Option.none()), (reject) =>
          Option.match(reject, {
            onSome: (r) => Effect.fail(new ProviderRejected(r)),
            onNone: () => Ref.update(submitted, (all) => [...all, { task, report }])
          })
        )
    })
    return Context.make(GenerationProvider, provider).pipe(
      Context.add(ManualGeneration, {
        submitted: Effect.map(Ref.get(submitted), (all) => all.map((s) => s.task)),
        report: (taskId, outcome) =>
          Effect.flatMap(Ref.get(submitted), (all) => {
            const entry = [...all].reverse().find((s) => s.task.id === taskId)
            return entry === undefined
              ? Effect.fail(new Error(`task ${taskId} was never submitted`))
              : entry.report(outcome)
          }),
        rejectNext: (code, message) => Ref.set(rejection, Option.some({ code, message }))
      })
    )
  })
)

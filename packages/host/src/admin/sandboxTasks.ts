/**
 * Admin sandbox controls of generation tasks (docs/contract.md §6): `POST /admin/v1/sandbox/tasks/{id}/
 * {succeed|fail}`. The operator plays the generation provider: the control reports the outcome
 * through the same path the provider's own reports take, so settlement is the real one — once per
 * task, whichever of the control and the provider's auto-completion comes first.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { SandboxGeneration } from "@frank/adapters"
import { Ids, Money, Tasks } from "@frank/core"
import { idOr, NotFound, orApiError, TaskView, taskView } from "@frank/core/http"
import { Effect, Schema } from "effect"

export const SandboxTaskAction = Schema.Literal("succeed", "fail")

export const SandboxTaskControl = Schema.Struct({
  costFranks: Schema.optional(
    Money.FranksAmount.pipe(Schema.filter((n) => n >= 0 || "must not be negative")).annotations({
      description: "succeed: the actual cost (default: the reserved amount; more than reserved is charged as reserved)"
    })
  ),
  code: Schema.optional(
    Schema.String.pipe(
      Schema.pattern(/^[A-Z][A-Z0-9_]{0,63}$/, {
        message: () => "must be an UPPER_SNAKE_CASE code of at most 64 characters"
      })
    )
  ).annotations({ description: "fail: the failure code (default SANDBOX_FAILED)" }),
  message: Schema.optional(Schema.String.pipe(Schema.maxLength(500))).annotations({
    description: "fail: the failure message"
  })
}).annotations({ identifier: "SandboxTaskControl", parseOptions: { errors: "all", onExcessProperty: "ignore" } })

export const SandboxTaskResult = Schema.Struct({
  applied: Schema.Boolean.annotations({
    description: "False when the task had already finished: the report was refused and nothing was settled again"
  }),
  task: TaskView
}).annotations({ identifier: "SandboxTaskResult" })

const taskId = HttpApiSchema.param("id", Schema.String)
const action = HttpApiSchema.param("action", SandboxTaskAction)

export const sandboxTaskEndpoint = HttpApiEndpoint.post("sandboxTask")`/admin/v1/sandbox/tasks/${taskId}/${action}`
  // The body is optional: an empty body decodes as null.
  .setPayload(Schema.NullOr(SandboxTaskControl))
  .addSuccess(SandboxTaskResult)
  .addError(NotFound)
  .annotate(
    OpenApi.Description,
    "Sandbox generation provider: the task succeeds (with a rendered output and the actual cost; the rest of the reservation is released) " +
      "or fails (the reservation is refunded). A task that already finished stays as it is (`applied: false`)."
  )

/** The handler of `sandboxTask`; needs Tasks and SandboxGeneration. */
export const makeSandboxTaskHandler = Effect.gen(function* () {
  const tasks = yield* Tasks.Tasks
  const sandbox = yield* SandboxGeneration.SandboxGeneration
  return (id: string, act: typeof SandboxTaskAction.Type, control: typeof SandboxTaskControl.Type | null) =>
    Effect.gen(function* () {
      const task = yield* orApiError(
        Effect.flatMap(
          idOr(Ids.TaskId, id, () => new Tasks.TaskNotFound({ message: `task ${id} not found` })),
          tasks.locate
        )
      )
      const outcome =
        act === "succeed"
          ? sandbox.succeeded(
              task,
              control?.costFranks === undefined ? undefined : Money.franksToMinor(control.costFranks)
            )
          : sandbox.failed(task, { code: control?.code, message: control?.message })
      const reported = yield* orApiError(tasks.report(task.partnerId, task.id, outcome))
      return { partnerId: task.partnerId, taskId: task.id, applied: reported.changed, task: taskView(reported.task) }
    })
})

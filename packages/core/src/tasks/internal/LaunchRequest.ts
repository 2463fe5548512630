/**
 * The body of `POST /v1/tasks`: the cost-estimate fields (spec "Cost estimate request fields")
 * plus `inputs`, the stored files the model works on. Each input has a role that is one of the
 * estimate's counts, so a launch is priced exactly like the estimate of the same request: the
 * counts are filled in from the inputs, and a count that contradicts them is refused.
 */
import { Schema } from "effect"
import { BoundedArray } from "../../internal/BoundedArray.js"
import { EstimateRequest } from "../../pricing/EstimateRequest.js"
import { countFieldOfRole, InputRole, type TaskInput } from "../Task.js"

/** The API caps reference counts at 30 + 30 + 10 + 10; inputs can never need more. */
export const MAX_TASK_INPUTS = 80
export const MAX_IDEMPOTENCY_KEY_CHARS = 128

const Uuid = Schema.String.pipe(
  Schema.pattern(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, {
    message: () => "must be a stored file id (UUID)"
  })
)

export const TaskInputRequest = Schema.Struct({
  storedFileId: Uuid.annotations({ description: "A stored file of the caller (`storedFileId` of an import)" }),
  role: InputRole.annotations({
    description:
      "image → imageCount, referenceImage → referenceImageCount, referenceVideo → referenceVideoCount, referenceAudio → referenceAudioCount"
  })
}).annotations({ identifier: "TaskInput" })

/** The body of a task launch: an estimate request plus the task's inputs (stored files or URLs). */
export const LaunchTaskRequest = Schema.Struct({
  ...EstimateRequest.fields,
  inputs: Schema.optionalWith(
    BoundedArray(TaskInputRequest, MAX_TASK_INPUTS, `must list at most ${MAX_TASK_INPUTS} inputs`),
    { exact: true }
  )
}).annotations({
  identifier: "LaunchTaskRequest",
  // HttpApi decodes with no options, so they travel with the schema: all violations, unknown fields stripped.
  parseOptions: { errors: "all", onExcessProperty: "ignore" }
})
export type LaunchTaskRequest = typeof LaunchTaskRequest.Type

export interface ResolvedLaunch {
  /** The estimate request to price: the counts of the inputs filled in. */
  readonly estimate: EstimateRequest
  readonly inputs: ReadonlyArray<TaskInput>
  /** Contradictions between counts and inputs, one message each. */
  readonly problems: ReadonlyArray<string>
}

/** Splits a launch into the estimate to price and its inputs; counts come from the inputs. */
export const resolveLaunch = (launch: LaunchTaskRequest): ResolvedLaunch => {
  const { inputs: given, ...fields } = launch
  const inputs: ReadonlyArray<TaskInput> = (given ?? []).map((i) => ({
    storedFileId: i.storedFileId.toLowerCase(),
    role: i.role
  }))
  const estimate: Record<string, unknown> = { ...fields }
  const problems: string[] = []
  for (const role of InputRole.literals) {
    const field = countFieldOfRole[role]
    const count = inputs.filter((i) => i.role === role).length
    const stated = fields[field]
    if (stated === undefined) {
      if (count > 0) estimate[field] = count
    } else if (stated !== count)
      problems.push(`${field}: ${stated} does not match the ${count} input(s) with role "${role}"`)
  }
  return { estimate: estimate as EstimateRequest, inputs, problems }
}

/** JSON with object keys sorted at every level: equal values give equal strings. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        )
      : v
  )

/** Whether a retried launch asks for the same thing as the stored task (same key, same request). */
export const sameLaunch = (
  task: { readonly request: EstimateRequest; readonly inputs: ReadonlyArray<TaskInput> },
  resolved: ResolvedLaunch
): boolean =>
  canonicalJson({ request: task.request, inputs: task.inputs }) ===
  canonicalJson({ request: resolved.estimate, inputs: resolved.inputs })

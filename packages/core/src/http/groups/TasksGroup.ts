/**
 * Generation tasks (docs/contract.md §5 "tasks"): launch with `media:run`, status, list and result
 * with `tasks:read`. Generation-area envelope: successes are `{ success: true, data }`, failures
 * `{ success: false, code, message, data }` (generationEnvelope.ts).
 */
import { IdempotencyClaim } from "../IdempotencyClaim.js"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Family } from "../../pricing/Catalog.js"
import { LaunchTaskRequest, MAX_IDEMPOTENCY_KEY_CHARS } from "../../tasks/internal/LaunchRequest.js"
import { InputRole, TaskStatus } from "../../tasks/Task.js"
import { BadRequest, Conflict, NotFound, PaymentRequired } from "../errors/ApiError.js"
import { QueryInt, requestParseOptions } from "../internal/coerce.js"
import { generationSuccess } from "../internal/generationEnvelope.js"
import { ApiKeyAuth, RequiredScope } from "../internal/Security.js"

const Timestamp = Schema.String.annotations({ description: "ISO 8601" })

export const LaunchedTask = Schema.Struct({
  task_id: Schema.String,
  status: TaskStatus,
  reservedFranks: Schema.Number.annotations({
    description: "Held for the task: the estimate at the caller's tariff, ₣"
  })
}).annotations({ identifier: "LaunchedTask" })
export type LaunchedTask = typeof LaunchedTask.Type

/** The estimate fields a task was launched with, as stored (input counts filled in). */
export const TaskRequestView = Schema.Struct({
  modelId: Schema.String,
  operation: Schema.optional(Schema.String),
  mode: Schema.optional(Schema.String),
  resolution: Schema.optional(Schema.String),
  duration: Schema.optional(Schema.Number),
  prompt: Schema.optional(Schema.String),
  imageCount: Schema.optional(Schema.Number),
  referenceImageCount: Schema.optional(Schema.Number),
  referenceVideoCount: Schema.optional(Schema.Number),
  referenceAudioCount: Schema.optional(Schema.Number),
  imageOutputCount: Schema.optional(Schema.Number),
  voiceCount: Schema.optional(Schema.Number),
  quality: Schema.optional(Schema.String)
}).annotations({ identifier: "TaskRequest" })

/** The schema of a task in the partner API. */
export const TaskView = Schema.Struct({
  task_id: Schema.String.annotations({ description: "The same name as in the launch answer" }),
  status: TaskStatus,
  modelId: Schema.String,
  family: Family,
  operation: Schema.String,
  mode: Schema.String,
  resolution: Schema.NullOr(Schema.String),
  quality: Schema.NullOr(Schema.String),
  request: TaskRequestView,
  inputs: Schema.Array(Schema.Struct({ storedFileId: Schema.String, role: InputRole })),
  reservedFranks: Schema.Number,
  costFranks: Schema.NullOr(Schema.Number).annotations({
    description: "The actual charge (≤ reservedFranks; the rest was released); null until succeeded"
  }),
  result: Schema.NullOr(
    Schema.Struct({
      url: Schema.String.annotations({
        description: "Where the output is; engine-kept outputs are served at /v1/tasks/{id}/result (tasks:read)"
      }),
      mimeType: Schema.String,
      sizeBytes: Schema.Number,
      text: Schema.NullOr(Schema.String).annotations({ description: "The text itself, for text outputs" })
    })
  ),
  failure: Schema.NullOr(Schema.Struct({ code: Schema.String, message: Schema.String })),
  idempotencyKey: Schema.NullOr(Schema.String),
  createdAt: Timestamp,
  startedAt: Schema.NullOr(Timestamp),
  finishedAt: Schema.NullOr(Timestamp),
  expiresAt: Schema.NullOr(Timestamp).annotations({
    description:
      "While the task is queued or running: when its reservation lapses. Unfinished then, it fails with TASK_EXPIRED and the reservation is refunded. Null once finished"
  }),
  lateReport: Schema.NullOr(
    Schema.Struct({
      outcome: Schema.Literal("started", "succeeded", "failed"),
      receivedAt: Timestamp,
      costFranks: Schema.NullOr(Schema.Number).annotations({ description: "The cost a late success reported" }),
      failureCode: Schema.NullOr(Schema.String).annotations({ description: "The code a late failure reported" })
    })
  ).annotations({
    description:
      "A provider report that arrived after the reservation lapsed (a late end is kept over a late start). It settled nothing: nothing is charged for it"
  })
}).annotations({ identifier: "Task" })
export type TaskView = typeof TaskView.Type

export const TaskPageView = Schema.Struct({
  items: Schema.Array(TaskView),
  page: Schema.Number,
  limit: Schema.Number,
  total: Schema.Number
}).annotations({ identifier: "TaskPage" })

export const TasksQuery = Schema.Struct({
  status: Schema.optional(TaskStatus),
  page: Schema.optional(QueryInt(1, 1_000_000)),
  limit: Schema.optional(QueryInt(1, 100))
}).annotations(requestParseOptions)

export const LaunchHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(
    Schema.String.pipe(
      Schema.minLength(1, { message: () => "Idempotency-Key must not be empty" }),
      Schema.maxLength(MAX_IDEMPOTENCY_KEY_CHARS, {
        message: () => `Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY_CHARS} characters`
      })
    )
  )
}).annotations(requestParseOptions)

const idParam = HttpApiSchema.param("id", Schema.String)

/** The partner API's task endpoints. */
export class TasksGroup extends HttpApiGroup.make("tasks")
  .middleware(IdempotencyClaim)
  .add(
    HttpApiEndpoint.post("launch", "/v1/tasks")
      .setPayload(LaunchTaskRequest)
      .setHeaders(LaunchHeaders)
      .addSuccess(generationSuccess(LaunchedTask), { status: 201 })
      .addSuccess(
        generationSuccess(LaunchedTask).annotations({
          description: "A retried launch (same Idempotency-Key): the first task"
        })
      )
      .addError(BadRequest)
      .addError(PaymentRequired)
      .addError(Conflict)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "media:run")
      .annotate(
        OpenApi.Description,
        "Validates and prices like the estimate, reserves the amount and starts the task. 402 INSUFFICIENT_FUNDS when available is short. " +
          "With an Idempotency-Key (≤ 128 chars) a retry answers the first task (200) and never reserves twice; the same key with another request is 409 IDEMPOTENCY_KEY_REUSED."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/v1/tasks")
      .setUrlParams(TasksQuery)
      .addSuccess(generationSuccess(TaskPageView))
      .addError(BadRequest)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "tasks:read")
      .annotate(OpenApi.Description, "Newest first")
  )
  .add(
    HttpApiEndpoint.get("get")`/v1/tasks/${idParam}`
      .addSuccess(generationSuccess(TaskView))
      .addError(NotFound)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "tasks:read")
  )
  .add(
    HttpApiEndpoint.get("result")`/v1/tasks/${idParam}/result`
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "application/octet-stream" }))
      .addError(NotFound)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "tasks:read")
      .annotate(
        OpenApi.Description,
        "The output bytes of a succeeded task, with its content type (404 TASK_RESULT_NOT_AVAILABLE otherwise)"
      )
  )
  .annotate(OpenApi.Title, "Generation tasks") {}

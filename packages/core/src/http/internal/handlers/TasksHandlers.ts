/**
 * Handlers of the tasks group: thin translations between the Tasks service and the views. The
 * generation-area envelope of failures is applied API-wide (serverMiddleware.ts).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { TaskId } from "../../../EntityIds.js"
import { minorToFranks } from "../../../internal/money.js"
import { isTerminal, type Task } from "../../../tasks/Task.js"
import { TaskNotFound } from "../../../tasks/TaskError.js"
import { Tasks } from "../../../tasks/Tasks.js"
import { orApiError } from "../../errors/domainErrors.js"
import { idOr } from "../../pathIds.js"
import type { LaunchedTask, TaskView } from "../../groups/TasksGroup.js"
import { PartnerApi } from "../../PartnerApi.js"
import { CurrentApiKey } from "../Security.js"
import { iso } from "../../../isoTime.js"

/** A file name extension for the engine-kept output types (sandbox results). */
const extensions: Readonly<Record<string, string>> = {
  "image/png": ".png",
  "video/x-msvideo": ".avi",
  "audio/wav": ".wav",
  "application/json": ".json",
  "text/plain": ".txt"
}
const extensionOf = (mimeType: string) => extensions[mimeType.split(";")[0]!.trim()] ?? ""

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms))

export const launchedTask = (t: Task): LaunchedTask => ({
  task_id: t.id,
  status: t.status,
  reservedFranks: minorToFranks(t.reservedMinor)
})

/** A task as the partner API shows it. */
export const taskView = (t: Task): TaskView => ({
  task_id: t.id,
  status: t.status,
  modelId: t.modelId,
  family: t.family,
  operation: t.operation,
  mode: t.mode,
  resolution: t.resolution,
  quality: t.quality,
  request: t.request,
  inputs: t.inputs,
  reservedFranks: minorToFranks(t.reservedMinor),
  costFranks: t.costMinor === null ? null : minorToFranks(t.costMinor),
  result: t.result,
  failure: t.failure,
  idempotencyKey: t.idempotencyKey,
  createdAt: iso(t.createdAt),
  startedAt: isoOrNull(t.startedAt),
  finishedAt: isoOrNull(t.finishedAt),
  expiresAt: isTerminal(t.status) ? null : iso(t.expiresAt),
  lateReport:
    t.lateReport === null
      ? null
      : {
          outcome: t.lateReport.outcome,
          receivedAt: iso(t.lateReport.receivedAt),
          costFranks: t.lateReport.costMinor === null ? null : minorToFranks(t.lateReport.costMinor),
          failureCode: t.lateReport.failureCode
        }
})

export const TasksHandlers = HttpApiBuilder.group(PartnerApi, "tasks", (handlers) =>
  Effect.gen(function* () {
    const tasks = yield* Tasks
    const partner = Effect.map(CurrentApiKey, (k) => k.partnerId)
    const taskId = (raw: string) =>
      orApiError(idOr(TaskId, raw, () => new TaskNotFound({ message: `task ${raw} not found` })))
    return handlers
      .handle("launch", ({ payload, headers }) =>
        Effect.gen(function* () {
          const launched = yield* orApiError(tasks.launch(yield* partner, payload, headers["idempotency-key"]))
          const body = { success: true as const, data: launchedTask(launched.task) }
          // A retried launch answers the first task with 200, a new one with 201.
          return launched.created ? body : HttpServerResponse.unsafeJson(body, { status: 200 })
        })
      )
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const page = urlParams.page ?? 1
          const limit = urlParams.limit ?? 20
          const result = yield* orApiError(
            tasks.list(yield* partner, { status: urlParams.status }, (page - 1) * limit, limit)
          )
          return {
            success: true as const,
            data: { items: result.items.map(taskView), page, limit, total: result.total }
          }
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const task = yield* orApiError(tasks.get(yield* partner, yield* taskId(path.id)))
          return { success: true as const, data: taskView(task) }
        })
      )
      .handle("result", ({ path }) =>
        Effect.gen(function* () {
          const content = yield* orApiError(tasks.result(yield* partner, yield* taskId(path.id)))
          return HttpServerResponse.uint8Array(content.bytes, {
            contentType: content.mimeType,
            headers: {
              "content-disposition": `inline; filename="${path.id}${extensionOf(content.mimeType)}"`,
              "cache-control": "private, max-age=86400"
            }
          })
        })
      )
  })
)

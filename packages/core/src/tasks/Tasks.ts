/**
 * The generation task service: launch (validate and price like the estimate, check the inputs,
 * reserve and create in one transaction, hand over to the provider), status reads, and the
 * provider's outcome reports, which settle the ledger exactly once.
 *
 * Money and events move in the transaction of the task change (TaskStore `create`/`update`):
 * - launch: the task row and the reservation;
 * - success: the status, `ledger.confirm` of the actual cost (its `billing.settled`) and
 *   `task.succeeded`;
 * - failure: the status, `task.failed`, `ledger.refund` (its `billing.refunded`) and
 *   `task.refunded`.
 * A repeated report is refused by the state machine before anything is written. A task still
 * unfinished at its `expiresAt` fails with TASK_EXPIRED and its hold is refunded, by the expiry
 * sweep (TaskExpiry) or by the first report that comes later; a late report settles nothing and is
 * kept on the task as `lateReport`.
 */
import { Clock, Context, Effect, Either, Layer, Option } from "effect"
import { StoredFileLookup } from "../files/StoredFileLookup.js"
import { parseId, StoredFileId, TaskId, type PartnerId } from "../EntityIds.js"
import { Ids } from "../internal/ids.js"
import { Ledger } from "../ledger/Ledger.js"
import type { LedgerError } from "../ledger/LedgerError.js"
import { franksToMinor } from "../internal/money.js"
import { findModel } from "../pricing/Catalog.js"
import { Pricing } from "../pricing/Pricing.js"
import { tokenizerReadyFor } from "../pricing/tokens.js"
import { validateRequest } from "../pricing/internal/validateRequest.js"
import type { StoreError } from "../StoreError.js"
import { Tariffs } from "../tariff/Tariffs.js"
import { Outbox } from "../events/Outbox.js"
import { GenerationProvider, type TaskReporter } from "./GenerationProvider.js"
import { type LaunchTaskRequest, resolveLaunch, sameLaunch } from "./internal/LaunchRequest.js"
import { isTerminal, type Task, type TaskContent } from "./Task.js"
import {
  IdempotencyKeyReused,
  TaskNotFound,
  TaskOutcomeInvalid,
  TaskRequestInvalid,
  TaskResultUnavailable
} from "./TaskError.js"
import { makeExpiry } from "./internal/expiry.js"
import { makeSettle } from "./internal/settle.js"
import type { TaskObserverShape } from "./TaskObserver.js"
import { holdTtlFor, TaskSettings, taskResultUrl } from "./TaskSettings.js"
import { outcomeName, outcomeProblem, type TaskOutcome, transitionTask } from "./TaskState.js"
import { type TaskFilter, type TaskPage, TaskStore } from "./TaskStore.js"

/** How many unfinished tasks a restarted host hands back to its provider at most. */
export const RESUME_BATCH = 10_000

export interface Launched {
  readonly task: Task
  /** False when an earlier launch with the same Idempotency-Key is answered. */
  readonly created: boolean
}

export interface Reported {
  readonly task: Task
  /** False when the state machine refused the outcome (a repeated report, or one after the end). */
  readonly changed: boolean
  /** True when the report came after the task's `expiresAt`: kept as `lateReport`, settled nothing. */
  readonly late: boolean
}

/** What one run of the expiry sweep did. */
export interface ExpiredBatch {
  /** Unfinished tasks found at or past their `expiresAt` (at most the limit asked for). */
  readonly due: number
  /** Of those, the ones this run failed and refunded (another run or a report may take one first). */
  readonly expired: number
}

export type LaunchError = TaskRequestInvalid | IdempotencyKeyReused | LedgerError | StoreError

export interface TasksShape {
  readonly launch: (
    partnerId: PartnerId,
    request: LaunchTaskRequest,
    idempotencyKey?: string | undefined
  ) => Effect.Effect<Launched, LaunchError>
  readonly get: (partnerId: PartnerId, id: TaskId) => Effect.Effect<Task, TaskNotFound | StoreError>
  readonly list: (
    partnerId: PartnerId,
    filter: TaskFilter,
    offset: number,
    limit: number
  ) => Effect.Effect<TaskPage, StoreError>
  /** Records a provider's outcome; a terminal one settles the ledger in the same transaction. */
  readonly report: (
    partnerId: PartnerId,
    taskId: TaskId,
    outcome: TaskOutcome
  ) => Effect.Effect<Reported, TaskNotFound | TaskOutcomeInvalid | LedgerError | StoreError>
  /** The output bytes the engine keeps for a succeeded task. */
  readonly result: (
    partnerId: PartnerId,
    id: TaskId
  ) => Effect.Effect<TaskContent, TaskNotFound | TaskResultUnavailable | StoreError>
  /** Operator lookup by id across partners (admin sandbox controls). */
  readonly locate: (id: TaskId) => Effect.Effect<Task, TaskNotFound | StoreError>
  /** Hands queued and running tasks to the provider again (host start); answers how many. */
  readonly resumeUnfinished: Effect.Effect<number, StoreError>
  /**
   * Expires up to `limit` unfinished tasks at or past their `expiresAt`, oldest expiry first, each
   * in one transaction (TASK_EXPIRED, its hold refunded, the failure's events), `concurrency` at a
   * time (default 1). A task that cannot be expired is logged and left for the next run.
   */
  readonly expireDue: (limit: number, concurrency?: number) => Effect.Effect<ExpiredBatch, StoreError>
  /** The earliest `expiresAt` of an unfinished task, if any (when the next sweep has work). */
  readonly nextExpiryAt: Effect.Effect<number | undefined, StoreError>
}

const notFound = (id: string) => new TaskNotFound({ message: `task ${id} not found` })

/** The tasks service: launches tasks against a hold and settles them when the provider reports. */
export class Tasks extends Context.Tag("@frank/core/Tasks")<Tasks, TasksShape>() {
  static readonly layer = Layer.effect(
    Tasks,
    Effect.gen(function* () {
      const store = yield* TaskStore
      const ledger = yield* Ledger
      const outbox = yield* Outbox
      const tariffs = yield* Tariffs
      const pricing = yield* Pricing
      const ids = yield* Ids
      const files = yield* StoredFileLookup
      const provider = yield* GenerationProvider
      const settings = yield* TaskSettings
      const observe = (f: (o: TaskObserverShape) => Effect.Effect<void>) =>
        settings.observer === undefined ? Effect.void : f(settings.observer)

      /** The catalog's list price per unit, for the ledger rows (absent if the catalog changed since). */
      const unitPriceOf = (task: Task) =>
        findModel(pricing.catalog, task.modelId)?.operations.find((o) => o.operation === task.operation)
          ?.pricePerUnitMicros

      const settle = makeSettle(ledger, outbox, unitPriceOf)

      const report: TasksShape["report"] = (partnerId, taskId, outcome) =>
        Effect.gen(function* () {
          const problem = outcomeProblem(outcome)
          if (problem !== undefined) return yield* new TaskOutcomeInvalid({ message: `task ${taskId}: ${problem}` })
          const now = yield* Clock.currentTimeMillis
          const ctx = { now, contentUrl: taskResultUrl(settings, taskId) }
          // Set by the last run of `decide` (the one whose change was written).
          let late = false
          let expired = false
          const updated = yield* store.update(
            partnerId,
            taskId,
            (current) => {
              const t = transitionTask(current, outcome, ctx)
              late = t._tag === "Moved" && t.late
              expired = t._tag === "Moved" && t.settlement === "expire"
              return t._tag === "Moved" ? { task: t.task, content: t.content } : undefined
            },
            settle
          )
          if (updated === undefined) return yield* notFound(taskId)
          // The settlement's events are committed now: let the delivery worker take them.
          if (updated.changed && isTerminal(updated.task.status)) yield* outbox.wake
          if (late) yield* observe((o) => o.lateReport(outcomeName(outcome)))
          if (expired) yield* observe((o) => o.tasksExpired(1))
          return { ...updated, late }
        })

      /** The callback a provider reports through; a report that cannot be recorded is logged. */
      const reporterFor =
        (task: Task): TaskReporter =>
        (outcome) =>
          report(task.partnerId, task.id, outcome).pipe(
            Effect.asVoid,
            Effect.catchAllCause((cause) =>
              Effect.logError("task report failed", cause).pipe(
                Effect.annotateLogs({ taskId: task.id, partnerId: task.partnerId, outcome: outcome._tag })
              )
            )
          )

      /** Gives the task to the provider; a provider that refuses it outright fails (and refunds) it. */
      const handOver = (task: Task) =>
        provider
          .submit(task, reporterFor(task))
          .pipe(
            Effect.catchTag("ProviderRejected", (e) =>
              reporterFor(task)({ _tag: "Failed", failure: { code: e.code, message: e.message } })
            )
          )

      const launch: TasksShape["launch"] = (partnerId, request, idempotencyKey) =>
        Effect.gen(function* () {
          const resolved = resolveLaunch(request)
          const discount = yield* tariffs.discountPercent(partnerId)
          yield* tokenizerReadyFor(pricing.catalog, resolved.estimate.modelId)
          const priced = pricing.estimate(resolved.estimate, discount)
          const problems: string[] = Either.isLeft(priced) ? [...priced.left.messages] : []
          problems.push(...resolved.problems)
          // Every distinct input once; a foreign file answers exactly like a missing one.
          const distinct = [...new Set(resolved.inputs.map((i) => i.storedFileId))]
          const owned = yield* Effect.forEach(
            distinct,
            (fileId) =>
              Option.match(parseId(StoredFileId)(fileId), {
                onNone: () => Effect.succeed(false),
                onSome: (id) => files.owns(partnerId, id)
              }),
            { concurrency: 4 }
          )
          distinct.forEach((fileId, i) => {
            if (owned[i] !== true) problems.push(`inputs: stored file ${fileId} not found`)
          })
          if (Either.isLeft(priced) || problems.length > 0)
            return yield* new TaskRequestInvalid({
              code: Either.isLeft(priced) ? priced.left.code : "TASK_INPUT_INVALID",
              message: problems.join("; "),
              messages: problems
            })
          // Pricing accepted the request, so it resolves against the same catalog.
          const { model, op, mode, resolution, quality } = Either.getOrThrow(
            validateRequest(pricing.catalog, resolved.estimate)
          )
          const reservedMinor = franksToMinor(priced.right.totalFranks)!
          const now = yield* Clock.currentTimeMillis
          const expiresAt = now + holdTtlFor(settings, model.holdTtlSeconds)
          const task: Task = {
            partnerId,
            id: yield* ids.nextId(TaskId),
            status: "queued",
            modelId: model.modelId,
            family: model.family,
            operation: op.operation,
            mode,
            resolution,
            quality,
            request: resolved.estimate,
            inputs: resolved.inputs,
            reservedMinor,
            costMinor: null,
            idempotencyKey: idempotencyKey ?? null,
            result: null,
            failure: null,
            createdAt: now,
            startedAt: null,
            finishedAt: null,
            expiresAt,
            lateReport: null
          }
          // A free operation holds nothing (the ledger refuses zero holds) and settles nothing.
          const reserve =
            reservedMinor === 0
              ? Effect.void
              : Effect.asVoid(
                  ledger.reserve(partnerId, {
                    taskId: task.id,
                    amountMinor: reservedMinor,
                    unitPriceMicros: op.pricePerUnitMicros,
                    note: `${model.modelId} ${op.operation}`,
                    expiresAt
                  })
                )
          const created = yield* store.create(task, reserve)
          if (!created.created) {
            if (!sameLaunch(created.task, resolved))
              return yield* new IdempotencyKeyReused({
                message: `Idempotency-Key ${JSON.stringify(idempotencyKey)} was used for a different launch (task ${created.task.id})`
              })
            return created
          }
          // A low-balance event of the reservation is committed now.
          yield* outbox.wake
          yield* handOver(created.task)
          return { task: (yield* store.get(partnerId, task.id)) ?? created.task, created: true }
        })

      const get: TasksShape["get"] = (partnerId, id) =>
        Effect.flatMap(store.get(partnerId, id), (task) =>
          task === undefined ? Effect.fail(notFound(id)) : Effect.succeed(task)
        )

      return {
        launch,
        get,
        list: store.list,
        report,
        result: (partnerId, id) =>
          Effect.gen(function* () {
            const task = yield* get(partnerId, id)
            if (task.status !== "succeeded")
              return yield* new TaskResultUnavailable({
                message: `task ${id} has no result: its status is ${task.status}`
              })
            const content = yield* store.content(partnerId, id)
            if (content === undefined)
              return yield* new TaskResultUnavailable({
                message: `the result of task ${id} is kept by its provider: ${task.result?.url ?? "(no link)"}`
              })
            return content
          }),
        locate: (id) =>
          Effect.flatMap(store.locate(id), (task) =>
            task === undefined ? Effect.fail(notFound(id)) : Effect.succeed(task)
          ),
        resumeUnfinished: Effect.flatMap(store.unfinished(RESUME_BATCH), (tasks) =>
          Effect.as(Effect.forEach(tasks, handOver, { discard: true }), tasks.length)
        ),
        ...makeExpiry(store, outbox, settle, observe)
      }
    })
  )
}

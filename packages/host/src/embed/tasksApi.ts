/**
 * Generation tasks through Promises: launch (priced, held on the ledger), read, list, report a
 * provider's outcome (settles the hold), fetch the kept result.
 */
import { type Ids, Tasks } from "@frank/core"
import { type Context, Effect } from "effect"
import { ids } from "./ids.js"
import { withPartner } from "./partner.js"
import type { Run } from "./run.js"
import { decodeInput } from "./validation.js"

type Service = Context.Tag.Service<typeof Tasks.Tasks>
type Success<F extends (...args: never) => Effect.Effect<unknown, unknown, unknown>> = Effect.Effect.Success<
  ReturnType<F>
>
/** A launch as the partner API takes it: the estimate request and the task's inputs. */
export type LaunchTaskRequest = typeof Tasks.LaunchTaskRequest.Encoded
/** The launched task, and whether this call created it (false: an earlier launch with the same idempotency key). */
export type Launched = Success<Service["launch"]>
/** A page of tasks, newest first, with the filter's total. */
export type TaskPage = Success<Service["list"]>
/** What `report` did: the task after the outcome. */
export type Reported = Success<Service["report"]>

/** Generation tasks of a partner. */
export interface FrankTasks {
  /** Prices the request, holds its cost and hands the task to the provider; VALIDATION_FAILED, INSUFFICIENT_FUNDS. */
  launch(partnerId: string, request: LaunchTaskRequest, idempotencyKey?: string): Promise<Launched>
  /** One task; TASK_NOT_FOUND (404) when it is not the partner's. */
  get(partnerId: string, taskId: string): Promise<Tasks.Task>
  /** A page of tasks, newest first. */
  list(
    partnerId: string,
    options?: { readonly status?: Tasks.TaskStatus; readonly offset?: number; readonly limit?: number }
  ): Promise<TaskPage>
  /** Records a provider's outcome; a terminal one settles the task's hold in the same transaction. */
  report(partnerId: string, taskId: string, outcome: Tasks.TaskOutcome): Promise<Reported>
  /** The output a succeeded task keeps (bytes and media type). */
  result(partnerId: string, taskId: string): Promise<Tasks.TaskContent>
}

/** The tasks API over `run`. */
export const makeTasksApi = (run: Run): FrankTasks => {
  const use = withPartner(run, Tasks.Tasks)
  const onTask = <A, E>(
    partnerId: string,
    taskId: string,
    f: (t: Service, partner: Ids.PartnerId, id: Ids.TaskId) => Effect.Effect<A, E>
  ) => use(partnerId, (t, partner) => Effect.flatMap(ids.task(taskId), (id) => f(t, partner, id)))
  return {
    launch: (partnerId, request, idempotencyKey) =>
      use(partnerId, (t, id) =>
        Effect.flatMap(decodeInput(Tasks.LaunchTaskRequest, request), (r) => t.launch(id, r, idempotencyKey))
      ),
    get: (partnerId, taskId) => onTask(partnerId, taskId, (t, p, id) => t.get(p, id)),
    list: (partnerId, options = {}) =>
      use(partnerId, (t, id) => t.list(id, { status: options.status }, options.offset ?? 0, options.limit ?? 50)),
    report: (partnerId, taskId, outcome) => onTask(partnerId, taskId, (t, p, id) => t.report(p, id, outcome)),
    result: (partnerId, taskId) => onTask(partnerId, taskId, (t, p, id) => t.result(p, id))
  }
}

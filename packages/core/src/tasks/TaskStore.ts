/**
 * The storage port of generation tasks. Adapters implement it on memory (simulations) and SQL
 * (Postgres and PGlite); one contract suite holds both to the same behaviour.
 *
 * Money moves with task changes: `create` and `update` run a caller's effect (the ledger
 * reservation, the settlement and its events) inside the task write's transaction, so a task
 * exists exactly when its reservation does, and a terminal status exists exactly when its
 * settlement does. On SQL the ledger store and the outbox join that transaction.
 */
import { Context, type Effect } from "effect"
import type { TaskId, PartnerId } from "../EntityIds.js"
import type { StoreError } from "../StoreError.js"
import type { Task, TaskContent, TaskStatus } from "./Task.js"

export interface TaskFilter {
  readonly status?: TaskStatus | undefined
}

export interface TaskPage {
  /** Newest first. */
  readonly items: ReadonlyArray<Task>
  /** Tasks matching the filter in all pages. */
  readonly total: number
}

/** A task change decided by the state machine, with the output bytes to keep (if any). */
export interface TaskChange {
  readonly task: Task
  readonly content?: TaskContent | undefined
}

/** A task named by its partner and id. */
export interface TaskRef {
  readonly partnerId: PartnerId
  readonly id: TaskId
}

/** The operations of the task store port. */
export interface TaskStoreShape {
  /**
   * Writes a new task and runs `alongside` in the same transaction; when `alongside` fails,
   * nothing is written. When the partner already has a task under `task.idempotencyKey`, writes
   * nothing, runs nothing and answers that task with `created: false` — also while the first
   * launch with that key is still in flight (the second waits for it).
   */
  readonly create: <E>(
    task: Task,
    alongside: Effect.Effect<void, E | StoreError>
  ) => Effect.Effect<{ readonly task: Task; readonly created: boolean }, E | StoreError>
  /** The partner's task, or undefined (also for another partner's). */
  readonly get: (partnerId: PartnerId, id: TaskId) => Effect.Effect<Task | undefined, StoreError>
  /** Newest first (creation time, then id). */
  readonly list: (
    partnerId: PartnerId,
    filter: TaskFilter,
    offset: number,
    limit: number
  ) => Effect.Effect<TaskPage, StoreError>
  /**
   * Runs `decide` on the locked task. When it answers a change, writes it (and its content) and
   * runs `alongside` in the same transaction; a failing `alongside` writes nothing. Concurrent
   * updates of one task serialize, so each `decide` sees the outcome of the previous one.
   * Answers undefined when there is no such task.
   */
  readonly update: <E>(
    partnerId: PartnerId,
    id: TaskId,
    decide: (current: Task) => TaskChange | undefined,
    alongside: (change: TaskChange, previous: Task) => Effect.Effect<void, E | StoreError>
  ) => Effect.Effect<{ readonly task: Task; readonly changed: boolean } | undefined, E | StoreError>
  /** The output bytes kept for a succeeded task. */
  readonly content: (partnerId: PartnerId, id: TaskId) => Effect.Effect<TaskContent | undefined, StoreError>
  /**
   * Operator access across partners (admin sandbox controls), by the task id alone. Task ids are
   * random UUIDs, so an id names at most one task.
   */
  readonly locate: (id: TaskId) => Effect.Effect<Task | undefined, StoreError>
  /** Queued and running tasks of every partner, oldest first: a restarted host hands them to its provider again. */
  readonly unfinished: (limit: number) => Effect.Effect<ReadonlyArray<Task>, StoreError>
  /**
   * Queued and running tasks of every partner whose `expiresAt` is at or before `now`, earliest
   * expiry first (then id), at most `limit`: the expiry sweep's work.
   */
  readonly expiring: (now: number, limit: number) => Effect.Effect<ReadonlyArray<TaskRef>, StoreError>
  /** The earliest `expiresAt` of a queued or running task; undefined when none is. */
  readonly nextExpiry: Effect.Effect<number | undefined, StoreError>
}

/** Port: where tasks are kept. */
export class TaskStore extends Context.Tag("@frank/core/TaskStore")<TaskStore, TaskStoreShape>() {}

/**
 * The task store on plain memory, for simulations and fast tests. One semaphore serializes
 * writes, the memory counterpart of the SQL store's row locks and idempotency-key constraint.
 *
 * There is no rollback in memory, so the caller's effect runs first and the task is written only
 * when it succeeded: a refused reservation or settlement leaves the task as it was.
 */
import { Effect, Layer } from "effect"
import type { StoreError } from "../../StoreError.js"
import { isTerminal, type Task, type TaskContent } from "../../tasks/Task.js"
import { type TaskChange, TaskStore, type TaskStoreShape } from "../../tasks/TaskStore.js"
import type { PartnerId } from "../../EntityIds.js"

/** Newest first: creation time, then id (the SQL order). */
const newestFirst = (a: Task, b: Task) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

export const makeMemoryTaskStore = Effect.gen(function* () {
  const tasks = new Map<string, Task>()
  const contents = new Map<string, TaskContent>()
  const lock = yield* Effect.makeSemaphore(1)
  const key = (partnerId: PartnerId, id: string) => `${partnerId}\u0000${id.toLowerCase()}`
  const partnerTasks = (partnerId: PartnerId) => [...tasks.values()].filter((t) => t.partnerId === partnerId)

  const store: TaskStoreShape = {
    create: <E>(task: Task, alongside: Effect.Effect<void, E | StoreError>) =>
      lock.withPermits(1)(
        Effect.suspend((): Effect.Effect<{ readonly task: Task; readonly created: boolean }, E | StoreError> => {
          const earlier =
            task.idempotencyKey === null
              ? undefined
              : partnerTasks(task.partnerId).find((t) => t.idempotencyKey === task.idempotencyKey)
          if (earlier !== undefined) return Effect.succeed({ task: earlier, created: false })
          return Effect.map(alongside, () => {
            tasks.set(key(task.partnerId, task.id), task)
            return { task, created: true }
          })
        })
      ),

    get: (partnerId, id) => Effect.sync(() => tasks.get(key(partnerId, id))),

    list: (partnerId, filter, offset, limit) =>
      Effect.sync(() => {
        const all = partnerTasks(partnerId)
          .filter((t) => filter.status === undefined || t.status === filter.status)
          .sort(newestFirst)
        return { items: all.slice(offset, offset + limit), total: all.length }
      }),

    update: <E>(
      partnerId: PartnerId,
      id: string,
      decide: (current: Task) => TaskChange | undefined,
      alongside: (change: TaskChange, previous: Task) => Effect.Effect<void, E | StoreError>
    ) =>
      lock.withPermits(1)(
        Effect.suspend(
          (): Effect.Effect<{ readonly task: Task; readonly changed: boolean } | undefined, E | StoreError> => {
            const current = tasks.get(key(partnerId, id))
            if (current === undefined) return Effect.succeed(undefined)
            const change = decide(current)
            if (change === undefined) return Effect.succeed({ task: current, changed: false })
            return Effect.map(alongside(change, current), () => {
              tasks.set(key(partnerId, id), change.task)
              if (change.content !== undefined)
                contents.set(key(partnerId, id), {
                  mimeType: change.content.mimeType,
                  bytes: change.content.bytes.slice()
                })
              return { task: change.task, changed: true }
            })
          }
        )
      ),

    content: (partnerId, id) => Effect.sync(() => contents.get(key(partnerId, id))),

    locate: (id) => Effect.sync(() => [...tasks.values()].find((t) => t.id === id.toLowerCase())),

    unfinished: (limit) =>
      Effect.sync(() =>
        [...tasks.values()]
          .filter((t) => t.status === "queued" || t.status === "running")
          .sort((a, b) => a.createdAt - b.createdAt)
          .slice(0, limit)
      ),

    expiring: (now, limit) =>
      Effect.sync(() =>
        [...tasks.values()]
          .filter((t) => !isTerminal(t.status) && t.expiresAt <= now)
          .sort((a, b) => a.expiresAt - b.expiresAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .slice(0, limit)
          .map((t) => ({ partnerId: t.partnerId, id: t.id }))
      ),

    nextExpiry: Effect.sync(() => {
      let next: number | undefined
      for (const t of tasks.values())
        if (!isTerminal(t.status) && (next === undefined || t.expiresAt < next)) next = t.expiresAt
      return next
    })
  }
  return store
})

/** The task store in memory. */
export const MemoryTaskStore = Layer.effect(TaskStore, makeMemoryTaskStore)

/**
 * An optional listener (TaskSettings.observer) told of what hold expiry does: tasks the sweep (or a late report) expired,
 * and provider reports that arrived after a task's `expiresAt`. The host counts both as Prometheus
 * series; an engine without an observer works the same.
 */
import type { Effect } from "effect"

/** What a task observer implements; each call runs after the change it reports committed. */
export interface TaskObserverShape {
  /** `count` tasks failed with TASK_EXPIRED and had their holds refunded. */
  readonly tasksExpired: (count: number) => Effect.Effect<void>
  /** A provider report arrived after the task's hold lapsed; it settled nothing. */
  readonly lateReport: (outcome: "started" | "succeeded" | "failed") => Effect.Effect<void>
}

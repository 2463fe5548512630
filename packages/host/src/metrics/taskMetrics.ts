/**
 * The task series of the host's /metrics: tasks failed by hold expiry and provider reports that
 * arrived after a task's hold lapsed (they settle nothing; a rising count means a provider is
 * slower than FRANK_TASK_HOLD_TTL_SECONDS allows). Labels take fixed values only.
 */
import { Effect } from "effect"
import { Metrics } from "./Metrics.js"

/** What TaskSettings.observer wants, on the host's counters. */
export interface TaskCounters {
  readonly tasksExpired: (count: number) => Effect.Effect<void>
  readonly lateReport: (outcome: "started" | "succeeded" | "failed") => Effect.Effect<void>
}

/** Hold expiry as counters: the observer of the host's TaskSettings. */
export const taskCounters: Effect.Effect<TaskCounters, never, Metrics> = Effect.gen(function* () {
  const metrics = yield* Metrics
  const expired = yield* metrics.counter({
    name: "frank_task_holds_expired_total",
    help: "Generation tasks failed with TASK_EXPIRED because their hold lapsed unsettled; each hold refunded"
  })
  const late = yield* metrics.counter<"outcome">({
    name: "frank_task_late_reports_total",
    help: "Provider reports received after the task's hold lapsed, by reported outcome; they settle nothing",
    labelNames: ["outcome"]
  })
  // Shown from the start at 0, so an alert on their increase has a series to watch.
  yield* expired.inc(undefined, 0)
  for (const outcome of ["started", "succeeded", "failed"] as const) yield* late.inc({ outcome }, 0)
  return {
    tasksExpired: (count) => expired.inc(undefined, count),
    lateReport: (outcome) => late.inc({ outcome })
  }
})

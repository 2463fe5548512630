/**
 * Settings of the task service: the base URL clients reach the engine at, which prefixes the
 * result links of outputs the engine keeps (`{publicBaseUrl}/v1/tasks/{id}/result`), and how long
 * a task's hold lives (FRANK_TASK_HOLD_TTL_SECONDS in the host).
 */
import { Context, Effect, Layer } from "effect"
import { DAY_MS } from "../timeUnits.js"
import type { TaskObserverShape } from "./TaskObserver.js"

/** How long a task's hold lives by default: a day after launch. */
export const DEFAULT_TASK_HOLD_TTL_MS = DAY_MS

export interface TaskSettingsShape {
  /** Without a trailing slash, e.g. `https://api.example.com`. */
  readonly publicBaseUrl: string
  /**
   * How long after launch an unfinished task's hold lapses (ms, at least a second); default a
   * day. A catalog model's `holdTtlSeconds` may shorten it for that model.
   */
  readonly holdTtlMs?: number | undefined
  /** Told of expiries and late reports (the host counts them on /metrics); none by default. */
  readonly observer?: TaskObserverShape | undefined
}

/** The settings of tasks (public URL base, hold lifetime), provided by the host. */
export class TaskSettings extends Context.Tag("@frank/core/TaskSettings")<TaskSettings, TaskSettingsShape>() {
  /** These task settings as a layer. */
  static readonly layer = (settings: TaskSettingsShape) =>
    Layer.effect(
      TaskSettings,
      settings.holdTtlMs !== undefined && !(Number.isSafeInteger(settings.holdTtlMs) && settings.holdTtlMs >= 1000)
        ? Effect.dieMessage("task settings: holdTtlMs must be a whole number of milliseconds, at least 1000")
        : Effect.succeed({ ...settings, publicBaseUrl: settings.publicBaseUrl.replace(/\/+$/, "") })
    )
}

/** Where the engine serves the kept output of a task. */
export const taskResultUrl = (settings: TaskSettingsShape, taskId: string): string =>
  `${settings.publicBaseUrl}/v1/tasks/${taskId}/result`

/** The hold lifetime of a task of a model: the engine's, or the model's own when shorter. */
export const holdTtlFor = (settings: TaskSettingsShape, modelTtlSeconds: number | undefined): number => {
  const engine = settings.holdTtlMs ?? DEFAULT_TASK_HOLD_TTL_MS
  return modelTtlSeconds === undefined ? engine : Math.min(engine, modelTtlSeconds * 1000)
}

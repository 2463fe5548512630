/**
 * Settings of the task service: the base URL clients reach the engine at, which prefixes the
 * result links of outputs the engine keeps (`{publicBaseUrl}/v1/tasks/{id}/result`).
 */
import { Context, Layer } from "effect"

export interface TaskSettingsShape {
  /** Without a trailing slash, e.g. `https://api.example.com`. */
  readonly publicBaseUrl: string
}

export class TaskSettings extends Context.Tag("@frank/core/TaskSettings")<TaskSettings, TaskSettingsShape>() {
  static readonly layer = (settings: TaskSettingsShape) =>
    Layer.succeed(TaskSettings, { publicBaseUrl: settings.publicBaseUrl.replace(/\/+$/, "") })
}

/** Where the engine serves the kept output of a task. */
export const taskResultUrl = (settings: TaskSettingsShape, taskId: string): string =>
  `${settings.publicBaseUrl}/v1/tasks/${taskId}/result`

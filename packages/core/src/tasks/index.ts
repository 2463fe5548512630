/**
 * The `Tasks` namespace: generation tasks, their inputs, states and outcomes, the generation
 * provider and store ports and the `Tasks` service.
 */
export { GenerationProvider } from "./GenerationProvider.js"
export { type Task, type TaskContent, type TaskInput, TaskStatus } from "./Task.js"
export { TaskNotFound } from "./TaskError.js"
export { TaskExpiry } from "./TaskExpiry.js"
export { TaskSettings } from "./TaskSettings.js"
export type { TaskOutcome, TaskOutput } from "./TaskState.js"
export type { TaskChange } from "./TaskStore.js"
export { Tasks } from "./Tasks.js"
export { LaunchTaskRequest } from "./internal/LaunchRequest.js"

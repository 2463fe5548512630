import { MemoryTaskStore } from "@frank/core/testing"
import type { Layer } from "effect"
import type { TaskStore } from "@frank/core/stores"

/** `TaskStore` in memory. */
export const layer: Layer.Layer<TaskStore> = MemoryTaskStore

/**
 * The memory task store lives in core's testing entry (simulations build engines on it without
 * adapters); re-exported here beside the other memory stores.
 */
import type { Tasks } from "@frank/core"
import { MemoryTaskStore } from "@frank/core/testing"
import type { Layer } from "effect"

/** `TaskStore` in memory. */
export const layer: Layer.Layer<Tasks.TaskStore> = MemoryTaskStore

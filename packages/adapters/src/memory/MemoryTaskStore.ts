/**
 * The memory task store lives in core's testing entry (simulations build engines on it without
 * adapters); re-exported here beside the other memory stores.
 */
export { MemoryTaskStore } from "@frank/core/testing"

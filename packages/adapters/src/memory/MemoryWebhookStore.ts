/**
 * The memory webhook store lives in core's testing entry (the simulation kit builds engines on
 * it without adapters); re-exported here beside the other memory stores.
 */
export { MemoryWebhookStore } from "@frank/core/testing"

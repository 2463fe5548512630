/**
 * A storage backend failed (connection lost, constraint violated unexpectedly, …). The outcome of
 * a write that fails this way is unknown to the caller, which is why the API answers 500.
 */
import { Schema } from "effect"

export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

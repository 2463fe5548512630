/**
 * A storage backend failed (connection lost, constraint violated unexpectedly, …). The outcome of
 * a write that fails this way is unknown to the caller, which is why the API answers 500.
 */
import { Schema } from "effect"

/** A store operation failed (database down, query error): the one error every store port fails with. */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {}

/**
 * The one way stores wrap a backend's failure: `storeErrorFor("webhook store")("appendEvent")`
 * maps a cause to "webhook store: appendEvent failed", keeping the cause for the logs.
 */
export const storeErrorFor =
  (store: string) =>
  (operation: string) =>
  (cause: unknown): StoreError =>
    new StoreError({ message: `${store}: ${operation} failed`, cause })

/** Why a request with an idempotency key did not run. */
import { Schema } from "effect"
import { codedErrorFields as fields } from "../codedError.js"

/** The key was first used for another method, path or body: 422 IDEMPOTENCY_KEY_REUSED. */
export class IdempotencyKeyMismatch extends Schema.TaggedError<IdempotencyKeyMismatch>()(
  "IdempotencyKeyMismatch",
  fields("IDEMPOTENCY_KEY_REUSED", 422)
) {}

/** The first request with this key still runs: 409 IDEMPOTENCY_REQUEST_IN_PROGRESS, retry in a second. */
export class IdempotencyRequestInProgress extends Schema.TaggedError<IdempotencyRequestInProgress>()(
  "IdempotencyRequestInProgress",
  fields("IDEMPOTENCY_REQUEST_IN_PROGRESS", 409)
) {}

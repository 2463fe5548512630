/**
 * Typed failures of generation tasks. Each carries its machine code and HTTP status, which the
 * HTTP layer copies into the generation-area envelope `{ success: false, code, message, data }`.
 * Insufficient funds is the ledger's own `InsufficientFunds` (402 `INSUFFICIENT_FUNDS`).
 */
import { Schema } from "effect"
import { codedErrorFields } from "../codedError.js"

const fields = codedErrorFields

/** No such task for this partner (a foreign id answers the same). */
export class TaskNotFound extends Schema.TaggedError<TaskNotFound>()("TaskNotFound", fields("TASK_NOT_FOUND", 404)) {}

/** The task has no output the engine keeps: not succeeded, or its output is a provider link. */
export class TaskResultUnavailable extends Schema.TaggedError<TaskResultUnavailable>()(
  "TaskResultUnavailable",
  fields("TASK_RESULT_NOT_AVAILABLE", 404)
) {}

/**
 * The launch does not fit the catalog or names inputs the partner does not own. `code` is the
 * estimate's (`PRICING_MODEL_UNKNOWN`, `ESTIMATE_INVALID`) when pricing refused the request, else
 * `TASK_INPUT_INVALID`; `messages` lists every problem at once.
 */
export class TaskRequestInvalid extends Schema.TaggedError<TaskRequestInvalid>()("TaskRequestInvalid", {
  code: Schema.String,
  status: Schema.optionalWith(Schema.Literal(400), { default: () => 400 as const }),
  message: Schema.String,
  messages: Schema.Array(Schema.String)
}) {}

/** The Idempotency-Key was already used by this partner for a different launch request. */
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()(
  "IdempotencyKeyReused",
  fields("IDEMPOTENCY_KEY_REUSED", 409)
) {}

/** A provider (or an operator's sandbox control) reported an outcome that cannot be recorded. */
export class TaskOutcomeInvalid extends Schema.TaggedError<TaskOutcomeInvalid>()(
  "TaskOutcomeInvalid",
  fields("TASK_OUTCOME_INVALID", 400)
) {}

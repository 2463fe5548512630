/**
 * Maps typed domain failures to the error envelope. Domain errors carry their machine `code`;
 * this table decides the HTTP status. A StoreError is not a client's fault: it becomes a defect,
 * which the server turns into a 500 INTERNAL_ERROR with a request id (and logs the cause).
 */
import { Effect } from "effect"
import { type ApiError, type ApiErrorStatus, apiError } from "./ApiError.js"

const statusByTag: Record<string, ApiErrorStatus> = {
  InsufficientFunds: 402,
  HoldNotFound: 404,
  HoldAlreadySettled: 409,
  ReferenceConflict: 409,
  InvalidAmount: 400,
  InvalidGrant: 400,
  InvalidAlertThreshold: 400,
  AlertLimitReached: 409,
  AlertNotFound: 404
}

/** A typed failure the API can map: its tag, machine code, message and, for some, its own status. */
export interface DomainError {
  readonly _tag: string
  readonly code?: string
  readonly message: string
  /** Errors that know their HTTP status (access errors) carry it themselves. */
  readonly status?: number | string
  readonly messages?: ReadonlyArray<string>
}

const isApiStatus = (n: number | string | undefined): n is ApiErrorStatus =>
  n === 400 || n === 401 || n === 402 || n === 403 || n === 404 || n === 409 || n === 422 || n === 429

/** The envelope a typed domain failure answers with: its own `code`, the status it carries or this table's. */
export const toApiError = (e: DomainError): ApiError => {
  const status = isApiStatus(e.status) ? e.status : (statusByTag[e._tag] ?? 400)
  return apiError(status, e.code ?? e._tag, e.messages !== undefined && e.messages.length > 0 ? e.messages : e.message)
}

/**
 * Turns an effect's domain failures into envelopes and its StoreErrors into defects.
 */
export const orApiError = <A, E extends DomainError, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, ApiError, R> =>
  Effect.catchAll(effect, (e) => (e._tag === "StoreError" ? Effect.die(e) : Effect.fail(toApiError(e))))

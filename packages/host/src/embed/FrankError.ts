/**
 * The one error class of the Promise API. Every failure of a `createFrank` method rejects with a
 * FrankError whose `code` and `status` are exactly what the partner API would answer for the same
 * failure: the mapping is the API's own (`toApiError` in @frank/core/http), not a second table.
 */
import { toApiError } from "@frank/core/http"
import { Cause, Option } from "effect"

/** Fields of a domain error that the envelope already carries, left out of `details`. */
const ENVELOPE_FIELDS = new Set(["_tag", "code", "status", "message", "messages", "cause", "name", "stack"])

/** A failure of a Frank operation: `switch (e.code)` on the API's machine codes. */
export class FrankError extends Error {
  /** The API's machine code, e.g. `INSUFFICIENT_FUNDS`, `VALIDATION_FAILED`, `INTERNAL_ERROR`. */
  readonly code: string
  /** The HTTP status the partner API answers this failure with (400..429, or 500). */
  readonly status: number
  /**
   * What else the failure says: the domain error's own fields (e.g. `requiredFranks`,
   * `availableFranks`), `messages` when it lists several violations, `field` for a malformed id.
   */
  readonly details: Readonly<Record<string, unknown>>

  constructor(
    init: {
      readonly code: string
      readonly status: number
      readonly message: string
      readonly details?: Readonly<Record<string, unknown>>
    },
    options?: { readonly cause?: unknown }
  ) {
    super(init.message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = "FrankError"
    this.code = init.code
    this.status = init.status
    this.details = init.details ?? {}
  }
}

/** An engine failure with a `_tag`: a domain error, or a StoreError. */
interface TaggedFailure {
  readonly _tag: string
  readonly message: string
  readonly code?: string
  readonly status?: number | string
  readonly messages?: ReadonlyArray<string>
}

const isTagged = (u: unknown): u is TaggedFailure =>
  typeof u === "object" && u !== null && typeof (u as { _tag?: unknown })._tag === "string"

const detailsOf = (e: object): Record<string, unknown> => {
  const details: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(e)) if (!ENVELOPE_FIELDS.has(k)) details[k] = v
  const messages = (e as { messages?: unknown }).messages
  if (Array.isArray(messages) && messages.length > 0) details.messages = messages
  return details
}

/** What the API answers when the outcome is not the caller's fault (a store failure, a defect). */
const internal = (cause: unknown, message: string) =>
  new FrankError({ code: "INTERNAL_ERROR", status: 500, message }, { cause })

/** A typed failure as the API maps it; a StoreError is a 500 as in the API. */
export const fromFailure = (e: unknown): FrankError => {
  if (e instanceof FrankError) return e
  if (!isTagged(e) || e._tag === "StoreError")
    return internal(e, isTagged(e) ? e.message : "Frank failed unexpectedly; the outcome of a write is unknown")
  const envelope = toApiError(e)
  const message = typeof envelope.message === "string" ? envelope.message : envelope.message.join("; ")
  return new FrankError(
    { code: envelope.code, status: envelope.statusCode, message, details: detailsOf(e) },
    { cause: e }
  )
}

/** The error a failed run rejects with: its typed failure mapped, else INTERNAL_ERROR with the cause. */
export const fromCause = (cause: Cause.Cause<unknown>): FrankError =>
  Option.match(Cause.failureOption(cause), {
    onSome: fromFailure,
    onNone: () =>
      Option.match(Cause.dieOption(cause), {
        onSome: (defect) =>
          defect instanceof FrankError ? defect : internal(Cause.squash(cause), "Frank failed unexpectedly"),
        onNone: () => internal(Cause.squash(cause), "the operation was interrupted (Frank is closing)")
      })
  })

/**
 * Bulk recovery's window rule (`POST /v1/webhooks/endpoints/{id}/recover`): a half-open range
 * [since, until) of delivery creation times, at most 14 days long, that may not reach back past
 * what retention keeps. Every broken rule is reported at once.
 */
import { Either } from "effect"
import { DAY_MS } from "../timeUnits.js"
import { type RecoveryIssueSchema, RecoveryWindowInvalid } from "./WebhookError.js"
import { iso } from "../isoTime.js"

/** The longest window one call may cover. */
export const MAX_RECOVERY_WINDOW_DAYS = 14
export const MAX_RECOVERY_WINDOW_MS = MAX_RECOVERY_WINDOW_DAYS * DAY_MS
/** Deliveries one call requeues at most; the answer's `remaining` counts the rest. */
export const MAX_RECOVERED_PER_CALL = 10_000

/** As the partner sends it: ISO 8601 instants; `until` omitted means now. */
export interface RecoveryRequest {
  readonly since: string
  readonly until?: string | undefined
}

/** Epoch milliseconds, `since` inclusive and `until` exclusive. */
export interface RecoveryWindow {
  readonly since: number
  readonly until: number
}

/** What one call did: deliveries requeued, and those of the window still dead-lettered or uncertain. */
export interface RecoveryResult {
  readonly requeued: number
  readonly remaining: number
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2})))?$/

/**
 * An ISO 8601 date (midnight UTC) or date-time with a zone, as epoch ms; undefined otherwise. A
 * date-time without a zone is refused: read in the server's zone, it would name another instant
 * than the partner meant. Calendar fields are checked too (Date.parse rolls 02-31 into March).
 */
export const parseInstant = (text: string): number | undefined => {
  const m = INSTANT.exec(text)
  if (m === null) return undefined
  const [, y, mo, d, h, mi, s, zone, zh, zm] = m
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)))
  if (day.getUTCFullYear() !== Number(y) || day.getUTCMonth() !== Number(mo) - 1 || day.getUTCDate() !== Number(d))
    return undefined
  if (h === undefined) return day.getTime()
  if (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59) return undefined
  if (zone !== "Z" && (Number(zh) > 23 || Number(zm) > 59)) return undefined
  const ms = Date.parse(text)
  return Number.isNaN(ms) ? undefined : ms
}

const FORMAT = "an ISO 8601 date-time with a time zone (e.g. 2026-11-01T10:00:00Z) or a date"

/** The window of `request` at `now`, or every rule it breaks; `retentionMs` is how far back deliveries are kept. */
export const recoveryWindow = (
  request: RecoveryRequest,
  now: number,
  retentionMs: number
): Either.Either<RecoveryWindow, RecoveryWindowInvalid> => {
  const problems: Array<typeof RecoveryIssueSchema.Type> = []
  const since = parseInstant(request.since)
  const until = request.until === undefined ? now : parseInstant(request.until)
  if (since === undefined) problems.push({ code: "RECOVERY_SINCE_FORMAT", message: `since: must be ${FORMAT}` })
  if (until === undefined) problems.push({ code: "RECOVERY_UNTIL_FORMAT", message: `until: must be ${FORMAT}` })
  const horizon = now - retentionMs
  const days = retentionMs / DAY_MS
  if (since !== undefined && since < horizon)
    problems.push({
      code: "RECOVERY_SINCE_TOO_OLD",
      days,
      at: iso(horizon),
      message: `since: must not be before ${iso(horizon)}: deliveries are kept for ${days} days, older ones are gone`
    })
  if (since !== undefined && until !== undefined) {
    if (since >= until)
      problems.push(
        request.until === undefined
          ? { code: "RECOVERY_SINCE_NOT_PAST", message: "since: must be in the past" }
          : { code: "RECOVERY_SINCE_NOT_BEFORE_UNTIL", message: "since: must be before until" }
      )
    else if (until - since > MAX_RECOVERY_WINDOW_MS)
      problems.push({
        code: "RECOVERY_WINDOW_TOO_LONG",
        days: MAX_RECOVERY_WINDOW_DAYS,
        message: `the window from since to until must not exceed ${MAX_RECOVERY_WINDOW_DAYS} days`
      })
  }
  if (problems.length > 0 || since === undefined || until === undefined)
    return Either.left(
      new RecoveryWindowInvalid({
        message: "invalid recovery window",
        messages: problems.map((p) => p.message),
        issues: problems
      })
    )
  return Either.right({ since, until })
}

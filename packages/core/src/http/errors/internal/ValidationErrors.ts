/**
 * Request decoding failures as the 400 envelope: `message` lists every violation at once as
 * readable strings naming the field (at most 20, then how many more), `code` is
 * VALIDATION_FAILED. Malformed JSON gets the same envelope instead of the platform's empty 400.
 */
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpServerError from "@effect/platform/HttpServerError"
import { Cause } from "effect"
import { validationFailed } from "../ApiError.js"

type DecodeIssue = HttpApiError.HttpApiDecodeError["issues"][number]

const EXPECTED_LITERAL = /^Expected ("[^"]*"|-?\d+(\.\d+)?|true|false|null), actual (.*)$/s

/**
 * One readable line per field. A union reports once per branch (`Expected undefined` for an
 * optional field, one line per allowed literal); those collapse into the line that helps.
 */
const describeField = (field: string, issues: ReadonlyArray<DecodeIssue>): string => {
  const useful = issues.filter((i) => !i.message.startsWith("Expected undefined"))
  const chosen = useful.length > 0 ? useful : issues
  const literals = chosen.map((i) => EXPECTED_LITERAL.exec(i.message))
  let message: string
  if (chosen.every((i) => i._tag === "Missing")) message = "is required"
  else if (literals.length > 1 && literals.every((m) => m !== null))
    message = `must be one of ${literals.map((m) => m![1]).join(", ")}; got ${literals[0]![3]}`
  else message = (chosen.find((i) => i._tag === "Refinement") ?? chosen[0]!).message
  return field.length > 0 ? `${field}: ${message}` : message
}

/**
 * Only the `undefined` or `null` branches of an optional or nullable field's union: they say
 * nothing once the field's other branch reported deeper.
 */
const onlyOptionalBranch = (issues: ReadonlyArray<DecodeIssue>) =>
  issues.every((i) => i.message.startsWith("Expected undefined") || i.message.startsWith("Expected null"))

/** An answer names at most this many problems, then how many more there are. */
export const MAX_LISTED_PROBLEMS = 20
/** A problem's line quotes at most this much (a message may quote the value it refused). */
const MAX_LINE_CHARS = 300

const clip = (line: string) => (line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS - 1)}…` : line)

/** Every proper ancestor of each field (`a.b.c` → `a.b`, `a`, and `` for the body itself). */
const ancestorsOf = (fields: Iterable<string>): ReadonlySet<string> => {
  const ancestors = new Set<string>()
  for (const field of fields) {
    if (field.length > 0) ancestors.add("")
    for (let i = field.indexOf("."); i !== -1; i = field.indexOf(".", i + 1)) ancestors.add(field.slice(0, i))
  }
  return ancestors
}

/** One readable line per refused field of a decode failure (at most 20, then how many more). */
export const validationMessages = (error: HttpApiError.HttpApiDecodeError): ReadonlyArray<string> => {
  const byField = new Map<string, DecodeIssue[]>()
  for (const issue of error.issues) {
    const field = issue.path.map(String).join(".")
    const issues = byField.get(field)
    if (issues === undefined) byField.set(field, [issue])
    else issues.push(issue)
  }
  // `{"eventTypes": ["billing.settled", 5]}` reports `eventTypes.1: Expected string` and, from the
  // union's other branches, `eventTypes: Expected undefined` (or `null`); those would read as if
  // the field were not allowed at all.
  const hasDeeper = ancestorsOf(byField.keys())
  const lines = [...byField].filter(([field, issues]) => !(hasDeeper.has(field) && onlyOptionalBranch(issues)))
  if (lines.length === 0) return [clip(error.message)]
  const listed = lines.slice(0, MAX_LISTED_PROBLEMS).map(([field, issues]) => clip(describeField(field, issues)))
  const more = lines.length - listed.length
  return more > 0 ? [...listed, `… and ${more} more problem${more === 1 ? "" : "s"}`] : listed
}

/**
 * The 400 envelope for a request the API could not decode, if that is what `cause` holds. A
 * malformed body surfaces as a defect of the body reader, hence squash rather than failures only.
 */
export const validationFailure = (cause: Cause.Cause<unknown>) => {
  const err: unknown = Cause.squash(cause)
  if (err instanceof HttpApiError.HttpApiDecodeError) return validationFailed(validationMessages(err))
  if (err instanceof HttpServerError.RequestError && err.reason === "Decode")
    return validationFailed(["body: malformed JSON"])
  return undefined
}

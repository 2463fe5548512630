/**
 * Request decoding failures as the 400 envelope: `message` lists every violation at once as
 * readable strings naming the field, `code` is VALIDATION_FAILED. Malformed JSON gets the same
 * envelope instead of the platform's empty 400.
 */
import { HttpApiError, HttpServerError } from "@effect/platform"
import { Cause } from "effect"
import { validationFailed } from "./ApiError.js"

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

export const validationMessages = (error: HttpApiError.HttpApiDecodeError): ReadonlyArray<string> => {
  const byField = new Map<string, DecodeIssue[]>()
  for (const issue of error.issues) {
    const field = issue.path.map(String).join(".")
    byField.set(field, [...(byField.get(field) ?? []), issue])
  }
  const fields = [...byField.keys()]
  // `{"eventTypes": ["billing.settled", 5]}` reports `eventTypes.1: Expected string` and, from the
  // union's other branches, `eventTypes: Expected undefined` (or `null`); those would read as if
  // the field were not allowed at all.
  const hasDeeper = (field: string) =>
    fields.some((f) => f.startsWith(field.length > 0 ? `${field}.` : "") && f !== field)
  const lines = [...byField]
    .filter(([field, issues]) => !(onlyOptionalBranch(issues) && hasDeeper(field)))
    .map(([field, issues]) => describeField(field, issues))
  return lines.length > 0 ? lines : [error.message]
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

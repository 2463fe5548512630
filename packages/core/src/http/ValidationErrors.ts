/**
 * Turns request decoding failures into the 400 envelope: `message` lists every violation at once as
 * readable strings naming the field, `code` is VALIDATION_FAILED. Malformed JSON gets the same
 * envelope instead of the platform's empty 400.
 */
import { HttpApiBuilder, HttpApiError, HttpServerError } from "@effect/platform"
import { Cause, Effect, Option } from "effect"
import { validationFailed } from "./ApiError.js"
import { PartnerApi } from "./PartnerApi.js"

type DecodeIssue = HttpApiError.HttpApiDecodeError["issues"][number]

const describeIssue = (issue: DecodeIssue): string => {
  const field = issue.path.map(String).join(".")
  const message = issue._tag === "Missing" ? "is required" : issue.message
  return field.length > 0 ? `${field}: ${message}` : message
}

export const validationMessages = (error: HttpApiError.HttpApiDecodeError): ReadonlyArray<string> => {
  // Several schema branches (a number or a numeric string) may report the same field; keep one line each.
  const lines = error.issues.map(describeIssue)
  return lines.length > 0 ? [...new Set(lines)] : [error.message]
}

export const ValidationErrorsLive = HttpApiBuilder.middleware(PartnerApi, (app) =>
  Effect.catchAllCause(app, (cause) => {
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure)) {
      const err: unknown = failure.value
      if (err instanceof HttpApiError.HttpApiDecodeError) return Effect.fail(validationFailed(validationMessages(err)))
      if (err instanceof HttpServerError.RequestError && err.reason === "Decode")
        return Effect.fail(validationFailed(["body: malformed JSON"]))
    }
    return Effect.failCause(cause)
  })
)

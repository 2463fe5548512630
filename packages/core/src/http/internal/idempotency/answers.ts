/**
 * Turning an outcome into the answer kept for retries and back: what is stored (status, body,
 * content type; only outcomes where the operation ran), the replayed response and the refusals.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Exit, Option } from "effect"
import { isStoredStatus } from "../../../idempotency/claimRule.js"
import type { StoredAnswer } from "../../../idempotency/IdempotencyStore.js"
import { isGenerationPath } from "../generationEnvelope.js"

const JSON_TYPE = "application/json"

interface Envelope {
  readonly statusCode: number
  readonly code: string
  readonly message: unknown
  readonly data?: unknown
}

const isEnvelope = (e: unknown): e is Envelope =>
  typeof e === "object" &&
  e !== null &&
  typeof (e as Envelope).statusCode === "number" &&
  typeof (e as Envelope).code === "string"

/** The body a typed API error is answered with on `path` (the generation area has its own shape). */
const errorBody = (path: string, e: Envelope): string =>
  JSON.stringify(
    isGenerationPath(path)
      ? { success: false, code: e.code, message: e.message, data: e.data ?? null }
      : { statusCode: e.statusCode, message: e.message, code: e.code }
  )

/** An error envelope response for `path`, in the area's shape. */
export const refusal = (
  path: string,
  status: number,
  code: string,
  message: string,
  headers: Readonly<Record<string, string>> = {}
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(errorBody(path, { statusCode: status, code, message }), {
    status,
    contentType: JSON_TYPE,
    headers
  })

/** A stored answer, replayed: the same status and body, marked `Idempotent-Replayed: true`. */
export const replayed = (answer: StoredAnswer): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(answer.body, {
    status: answer.status,
    contentType: answer.contentType,
    headers: { "idempotent-replayed": "true" }
  })

const decoder = new TextDecoder()

const bodyText = (response: HttpServerResponse.HttpServerResponse): string => {
  const body = response.body
  switch (body._tag) {
    case "Uint8Array":
      return decoder.decode(body.body)
    case "Raw":
      return typeof body.body === "string" ? body.body : ""
    default:
      return ""
  }
}

const codeOf = (text: string): string | undefined => {
  try {
    const parsed = JSON.parse(text) as { code?: unknown }
    return typeof parsed.code === "string" ? parsed.code : undefined
  } catch {
    return undefined
  }
}

const kept = (status: number, code: string | undefined): boolean => isStoredStatus(status, code === "VALIDATION_FAILED")

/**
 * The answer to keep for a request's outcome on `path`, or `undefined` when it is not kept (input
 * validation, credentials, rate limit, 5xx, an interruption).
 */
export const answerOf = (
  path: string,
  exit: Exit.Exit<HttpServerResponse.HttpServerResponse, unknown>
): StoredAnswer | undefined => {
  if (Exit.isSuccess(exit)) {
    const response = exit.value
    const text = bodyText(response)
    if (!kept(response.status, response.status >= 400 ? codeOf(text) : undefined)) return undefined
    const contentType = response.body.contentType ?? response.headers["content-type"] ?? JSON_TYPE
    return { status: response.status, body: text, contentType }
  }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure) || !isEnvelope(failure.value) || !kept(failure.value.statusCode, failure.value.code))
    return undefined
  return { status: failure.value.statusCode, body: errorBody(path, failure.value), contentType: JSON_TYPE }
}

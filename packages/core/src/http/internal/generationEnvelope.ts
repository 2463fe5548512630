/**
 * The generation area (`/service/…`, `/v1/tasks…`) answers in its own envelope (docs/contract.md §4):
 * `{ success: true, data }` on success (the endpoints' success schemas) and
 * `{ success: false, code, message, data }` on failure. Handlers, authentication, validation and
 * rate limiting all fail with the one set of typed API errors; the API-level error middleware
 * re-shapes those for generation paths here, so every failure of the area has the same envelope.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Schema } from "effect"

const GENERATION_PATH = /^\/(service\/|v1\/tasks(\/|$))/

export const isGenerationPath = (path: string): boolean => GENERATION_PATH.test(path)

export const GenerationFailure = Schema.Struct({
  success: Schema.Literal(false),
  code: Schema.String,
  message: Schema.Union(Schema.String, Schema.Array(Schema.String)),
  data: Schema.NullOr(Schema.Unknown)
}).annotations({ identifier: "GenerationFailure" })

/** `{ success: true, data }` around a generation-area result schema. */
export const generationSuccess = <A, I, R>(data: Schema.Schema<A, I, R>) =>
  Schema.Struct({ success: Schema.Literal(true), data })

interface Envelope {
  readonly statusCode: number
  readonly code: string
  readonly message: string | ReadonlyArray<string>
  readonly data?: unknown
}

const isEnvelope = (e: unknown): e is Envelope =>
  typeof e === "object" &&
  e !== null &&
  typeof (e as Envelope).statusCode === "number" &&
  typeof (e as Envelope).code === "string"

/** The generation-area response for a typed API error, or undefined when `error` is not one. */
export const generationFailureResponse = (error: unknown): HttpServerResponse.HttpServerResponse | undefined =>
  isEnvelope(error)
    ? HttpServerResponse.unsafeJson(
        { success: false, code: error.code, message: error.message, data: error.data ?? null },
        { status: error.statusCode }
      )
    : undefined

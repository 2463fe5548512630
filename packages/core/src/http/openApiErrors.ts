/**
 * Rewrites the generated OpenAPI document so a generated client can tell errors apart: each
 * operation answers only the error statuses it can produce, each with the envelope schema and an
 * enum of the machine codes on `code`. Effect's generator lists every API-wide error on every
 * operation with `code: string`, which says nothing per operation.
 */
import type { CodesByStatus, ErrorStatus, OperationDoc } from "./errorCodes.js"
import { isGenerationPath } from "./generationEnvelope.js"

// biome-ignore lint/suspicious/noExplicitAny: OpenApi.Transform hands over the document as untyped JSON
type Json = Record<string, any>

/** Codes of authentication, per security scheme name of the document. */
export type AuthCodes = Readonly<Record<string, CodesByStatus>>

export const partnerAuthCodes: AuthCodes = {
  apiKey: {
    401: ["API_KEY_INVALID", "API_KEY_EXPIRED"],
    403: ["LEGACY_KEY_FORBIDDEN", "API_KEY_SCOPE_REQUIRED"],
    429: ["RATE_LIMITED"]
  },
  bearer: {
    401: ["API_KEY_INVALID", "API_KEY_EXPIRED"],
    403: ["LEGACY_KEY_FORBIDDEN", "API_KEY_SCOPE_REQUIRED"],
    429: ["RATE_LIMITED"]
  },
  session: {
    401: ["SESSION_REQUIRED", "SESSION_EXPIRED"],
    403: ["SESSION_REQUIRED_NOT_API_KEY"],
    429: ["RATE_LIMITED"]
  }
}

const ENVELOPE_BY_STATUS: Record<ErrorStatus, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  402: "PaymentRequired",
  403: "Forbidden",
  404: "NotFound",
  409: "Conflict",
  413: "PayloadTooLarge",
  415: "UnsupportedMediaType",
  429: "TooManyRequests",
  500: "InternalError"
}

/** Envelopes of statuses no API error class declares: a server in front of the API answers them. */
const plainEnvelope = (status: number, description: string): Json => ({
  type: "object",
  required: ["statusCode", "message", "code"],
  properties: {
    statusCode: { type: "number", enum: [status] },
    message: { type: "string" },
    code: { type: "string" }
  },
  additionalProperties: false,
  description
})
const ERROR_STATUSES = Object.keys(ENVELOPE_BY_STATUS)

const GENERATION_FAILURE: Json = {
  type: "object",
  required: ["success", "code", "message", "data"],
  properties: {
    success: { type: "boolean", enum: [false] },
    code: { type: "string" },
    message: { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] },
    data: {}
  },
  additionalProperties: false,
  description: "The generation area's error envelope (`/service/…`, `/v1/tasks…`)"
}

const merge = (...sources: ReadonlyArray<CodesByStatus | undefined>): Map<string, Set<string>> => {
  const out = new Map<string, Set<string>>()
  for (const source of sources)
    for (const [status, codes] of Object.entries(source ?? {})) {
      const set = out.get(status) ?? new Set<string>()
      for (const c of codes ?? []) set.add(c)
      out.set(status, set)
    }
  return out
}

/**
 * Codes the server in front of the handlers answers for requests that carry a body (POST, PUT,
 * PATCH), whatever the operation: the reference host refuses oversized and non-JSON bodies.
 */
export type BodyRefusalCodes = CodesByStatus

const BODY_METHODS = new Set(["post", "put", "patch"])

/**
 * What an operation can answer: its own codes, its authentication's, validation (any query
 * parameter, declared or not, is checked for NUL characters), a path that names no route (an id
 * with a slash in it), the body refusals and 500.
 */
const codesOf = (
  method: string,
  op: Json,
  doc: OperationDoc | undefined,
  auth: AuthCodes,
  bodyRefusals: BodyRefusalCodes | undefined
): Map<string, Set<string>> => {
  const schemes = ((op.security ?? []) as ReadonlyArray<Json>).flatMap((s) => Object.keys(s))
  const hasPathParameters = ((op.parameters ?? []) as ReadonlyArray<Json>).some((p) => p.in === "path")
  return merge(
    { 400: ["VALIDATION_FAILED"] },
    hasPathParameters ? { 404: ["ROUTE_NOT_FOUND"] } : undefined,
    BODY_METHODS.has(method) ? bodyRefusals : undefined,
    ...schemes.map((s) => auth[s]),
    doc?.codes,
    { 500: ["INTERNAL_ERROR"] }
  )
}

const errorResponse = (previous: Json | undefined, envelope: string, codes: ReadonlyArray<string>): Json => ({
  description: previous?.description ?? "Error",
  content: {
    "application/json": {
      schema: {
        allOf: [
          { $ref: `#/components/schemas/${envelope}` },
          { type: "object", required: ["code"], properties: { code: { type: "string", enum: codes } } }
        ]
      }
    }
  }
})

/** The OpenApi.Transform of the partner API (and of the host's, with the admin operations added). */
export const documentErrors =
  (docs: Readonly<Record<string, OperationDoc>>, auth: AuthCodes, bodyRefusals?: BodyRefusalCodes) =>
  (spec: Json): Json => {
    for (const [path, item] of Object.entries(spec.paths as Json))
      for (const [method, op] of Object.entries(item as Json) as ReadonlyArray<[string, Json]>) {
        const doc = docs[op.operationId as string]
        if (doc !== undefined) op.summary = doc.summary
        const codes = codesOf(method, op, doc, auth, bodyRefusals)
        for (const status of ERROR_STATUSES) {
          const set = codes.get(status)
          if (set === undefined) delete op.responses[status]
          else {
            const envelope = isGenerationPath(path)
              ? "GenerationFailure"
              : ENVELOPE_BY_STATUS[Number(status) as ErrorStatus]
            op.responses[status] = errorResponse(op.responses[status], envelope, [...set].sort())
          }
        }
      }
    spec.components.schemas.GenerationFailure = GENERATION_FAILURE
    if (bodyRefusals?.[413] !== undefined)
      spec.components.schemas.PayloadTooLarge = plainEnvelope(413, "The request body is over the server's limit")
    if (bodyRefusals?.[415] !== undefined)
      spec.components.schemas.UnsupportedMediaType = plainEnvelope(415, "Request bodies are JSON")
    // Without servers a client generator has no base URL and linters refuse the document; this
    // document is served by the host it describes.
    if (spec.servers === undefined || spec.servers.length === 0)
      spec.servers = [{ url: "/", description: "The host serving this document" }]
    return spec
  }

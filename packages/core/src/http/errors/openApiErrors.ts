/**
 * Rewrites the generated OpenAPI document so a generated client can tell errors apart: each
 * operation answers only the error statuses it can produce, each with the envelope schema and an
 * enum of the machine codes on `code`. Effect's generator lists every API-wide error on every
 * operation with `code: string`, which says nothing per operation.
 */
import type { CodesByStatus, ErrorStatus, OperationDoc } from "./errorCodes.js"
import { isGenerationPath } from "../internal/generationEnvelope.js"
import { SPEC_KEYED_ROUTES } from "../internal/idempotency/specKeyedRoutes.js"

// biome-ignore lint/suspicious/noExplicitAny: OpenApi.Transform hands over the document as untyped JSON
type Json = Record<string, any>

/** Codes of authentication, per security scheme name of the document. */
export type AuthCodes = Readonly<Record<string, CodesByStatus>>

/** The auth error codes of each security scheme, for the OpenAPI document. */
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
    // CROSS_SITE_REQUEST: a change whose Origin (or Referer) names another site (the CSRF rule).
    403: ["SESSION_REQUIRED_NOT_API_KEY", "CROSS_SITE_REQUEST"],
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
  422: "UnprocessableEntity",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable"
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
const CHANGE_METHODS = new Set(["post", "put", "patch", "delete"])

/** What every change answers about its `Idempotency-Key` (IdempotencyLive.ts). */
const IDEMPOTENCY_CODES: CodesByStatus = {
  400: ["IDEMPOTENCY_KEY_INVALID"],
  409: ["IDEMPOTENCY_REQUEST_IN_PROGRESS"],
  422: ["IDEMPOTENCY_KEY_REUSED"]
}

/** Whether `method path` (an OpenAPI path) takes the general `Idempotency-Key`. */
const takesIdempotencyKey = (method: string, path: string): boolean =>
  CHANGE_METHODS.has(method) && !SPEC_KEYED_ROUTES.includes(`${method.toUpperCase()} ${path}`)

const IDEMPOTENCY_KEY_PARAMETER: Json = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "1–128 printable ASCII characters, scoped to the partner (admin API: to the admin token) and kept at least 24 h. " +
    "A retry with the same key, method, path and body answers the first answer again (header Idempotent-Replayed: true) " +
    "and runs nothing; the same key with another method, path or body is 422 IDEMPOTENCY_KEY_REUSED; while the first " +
    "request still runs, 409 IDEMPOTENCY_REQUEST_IN_PROGRESS with Retry-After: 1. Answers are kept when the operation ran " +
    "(2xx and its own 4xx), not for input validation (400 VALIDATION_FAILED), 401, 403, 429 or 5xx.",
  schema: { type: "string", minLength: 1, maxLength: 128, pattern: "^[\\x20-\\x7E]+$" }
}

const REPLAYED_HEADER: Json = {
  description: "`true` when this is the stored answer to an earlier request with the same Idempotency-Key",
  schema: { type: "string", enum: ["true"] }
}

/** Documents the header, the replay marker on successes and Retry-After on 409. */
const documentIdempotencyKey = (op: Json): void => {
  const parameters = (op.parameters ?? []) as Array<Json>
  if (!parameters.some((p) => p.in === "header" && String(p.name).toLowerCase() === "idempotency-key"))
    op.parameters = [...parameters, IDEMPOTENCY_KEY_PARAMETER]
  for (const [status, response] of Object.entries(op.responses as Json) as ReadonlyArray<[string, Json]>) {
    if (status.startsWith("2")) response.headers = { ...response.headers, "Idempotent-Replayed": REPLAYED_HEADER }
    if (status === "409")
      response.headers = {
        ...response.headers,
        "Retry-After": { description: "Seconds to wait (IDEMPOTENCY_REQUEST_IN_PROGRESS)", schema: { type: "integer" } }
      }
  }
}

/**
 * What an operation can answer: its own codes, its authentication's, validation (any query
 * parameter, declared or not, is checked for NUL characters), a path that names no route (an id
 * with a slash in it), the body refusals, 500 and what a server in front answers.
 */
const codesOf = (
  method: string,
  path: string,
  op: Json,
  doc: OperationDoc | undefined,
  auth: AuthCodes,
  bodyRefusals: BodyRefusalCodes | undefined,
  serverRefusals: CodesByStatus | undefined
): Map<string, Set<string>> => {
  const schemes = ((op.security ?? []) as ReadonlyArray<Json>).flatMap((s) => Object.keys(s))
  const hasPathParameters = ((op.parameters ?? []) as ReadonlyArray<Json>).some((p) => p.in === "path")
  return merge(
    { 400: ["VALIDATION_FAILED"] },
    hasPathParameters ? { 404: ["ROUTE_NOT_FOUND"] } : undefined,
    BODY_METHODS.has(method) ? bodyRefusals : undefined,
    ...schemes.map((s) => auth[s]),
    doc?.codes,
    takesIdempotencyKey(method, path) ? IDEMPOTENCY_CODES : undefined,
    { 500: ["INTERNAL_ERROR"] },
    serverRefusals
  )
}

/** The RateLimit fields (draft-ietf-httpapi-ratelimit-headers), referenced by every rate-limited answer. */
const RATE_LIMIT_HEADERS: Json = {
  "RateLimit-Policy": {
    description:
      'Structured Field list, one item per limit that applies: `"key";q=60;w=60, "ip";q=100;w=60` (q: quota, w: window in seconds; key, session, ip, import)',
    schema: { type: "string" }
  },
  RateLimit: {
    description:
      'The limit closest to exhaustion: `"key";r=41;t=23` (r: requests left, t: seconds until its window resets)',
    schema: { type: "string" }
  },
  "Retry-After": { description: "Seconds until the refusing limit's window resets", schema: { type: "integer" } }
}

/** An operation an authentication scheme with a 429 guards: every answer carries the fields. */
const isRateLimited = (op: Json, auth: AuthCodes): boolean =>
  ((op.security ?? []) as ReadonlyArray<Json>).some((s) =>
    Object.keys(s).some((name) => auth[name]?.[429] !== undefined)
  )

const documentRateLimitHeaders = (op: Json) => {
  for (const [status, response] of Object.entries(op.responses as Json) as ReadonlyArray<[string, Json]>) {
    const headers: Json = {
      ...(response.headers ?? {}),
      "RateLimit-Policy": { $ref: "#/components/headers/RateLimit-Policy" },
      RateLimit: { $ref: "#/components/headers/RateLimit" }
    }
    if (status === "429") headers["Retry-After"] = { $ref: "#/components/headers/Retry-After" }
    response.headers = headers
  }
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
  (
    docs: Readonly<Record<string, OperationDoc>>,
    auth: AuthCodes,
    bodyRefusals?: BodyRefusalCodes,
    /** What a server in front of the API answers on any operation (the host's request deadline). */
    serverRefusals?: CodesByStatus
  ) =>
  (spec: Json): Json => {
    for (const [path, item] of Object.entries(spec.paths as Json))
      for (const [method, op] of Object.entries(item as Json) as ReadonlyArray<[string, Json]>) {
        const doc = docs[op.operationId as string]
        if (doc !== undefined) op.summary = doc.summary
        const codes = codesOf(method, path, op, doc, auth, bodyRefusals, serverRefusals)
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
        if (takesIdempotencyKey(method, path)) documentIdempotencyKey(op)
        if (isRateLimited(op, auth)) documentRateLimitHeaders(op)
      }
    spec.components.headers = { ...(spec.components.headers ?? {}), ...RATE_LIMIT_HEADERS }
    spec.components.schemas.GenerationFailure = GENERATION_FAILURE
    if (bodyRefusals?.[413] !== undefined)
      spec.components.schemas.PayloadTooLarge = plainEnvelope(413, "The request body is over the server's limit")
    if (bodyRefusals?.[415] !== undefined)
      spec.components.schemas.UnsupportedMediaType = plainEnvelope(415, "Request bodies are JSON")
    if (serverRefusals?.[503] !== undefined)
      spec.components.schemas.ServiceUnavailable = plainEnvelope(
        503,
        "Not answered in time; a write's outcome may be unknown"
      )
    // Without servers a client generator has no base URL and linters refuse the document; this
    // document is served by the host it describes.
    if (spec.servers === undefined || spec.servers.length === 0)
      spec.servers = [{ url: "/", description: "The host serving this document" }]
    return spec
  }

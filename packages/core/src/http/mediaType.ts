/**
 * Request bodies of the API are JSON, said as `Content-Type: application/json` (a charset
 * parameter allowed, any casing). Any other type on an operation that takes a body is refused
 * with 415 before the body is read: the platform reads other types as text, form fields or bytes,
 * which only ever decode into misleading errors (see docs/decisions.md).
 */
import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpMethod from "@effect/platform/HttpMethod"
import { routeMatcher } from "./routeMatcher.js"

/** The machine code of a request body that is not JSON (415). */
export const UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"
/** The message that goes with `UNSUPPORTED_MEDIA_TYPE`. */
export const unsupportedMediaTypeMessage = "request bodies are JSON (Content-Type: application/json)"

/** `application/json`, with or without parameters, in any casing; nothing else (not `+json` types). */
export const isJsonMediaType = (contentType: string | undefined): boolean =>
  contentType !== undefined && contentType.split(";", 1)[0]!.trim().toLowerCase() === "application/json"

/** Whether the request's headers announce a body (a length above zero, or a chunked one). */
export const carriesBody = (headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>): boolean =>
  headers["transfer-encoding"] !== undefined || Number(headers["content-length"] ?? 0) > 0

/** Whether `method path` names an operation of `api` that takes a body. */
export const bodyOperations = (api: HttpApi.HttpApi.Any): ((method: string, path: string) => boolean) => {
  const match = routeMatcher(
    api,
    (endpoint) => endpoint.payloadSchema._tag !== "None" && HttpMethod.hasBody(endpoint.method)
  )
  return (method, path) => match(method, path) !== undefined
}

/**
 * The rule, on an operation that takes a body: a Content-Type other than JSON is refused, with a
 * body or without (the platform would still pick its reader by the type: a multipart reader
 * waits for parts that never come). Without a Content-Type only a request carrying a body is
 * refused; one without is left to the operation (an optional body decodes from nothing).
 */
export const refusesMediaType = (api: HttpApi.HttpApi.Any) => {
  const takesBody = bodyOperations(api)
  return (request: {
    readonly method?: string | undefined
    readonly url?: string | undefined
    readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  }): boolean => {
    const contentType = request.headers["content-type"] as string | undefined
    const refused = contentType === undefined ? carriesBody(request.headers) : !isJsonMediaType(contentType)
    return refused && takesBody(request.method ?? "", (request.url ?? "").split("?", 1)[0]!)
  }
}

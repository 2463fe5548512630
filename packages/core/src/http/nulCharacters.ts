/**
 * NUL characters in request text. PostgreSQL cannot store them in text, and no field of the API
 * has a use for them, so any request carrying one (in a JSON body string or key, or a query
 * parameter) is refused before decoding with 400 naming each field: the same answer on every
 * store.
 */
import { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { validationFailed } from "./ApiError.js"

const NUL = "\u0000"
const MESSAGE = "must not contain NUL characters"

/** The paths (dot-joined, as validation messages name fields) of every string holding NUL. Iterative: bodies may nest deep. */
export const fieldsWithNul = (value: unknown): ReadonlyArray<string> => {
  const found: string[] = []
  const stack: Array<readonly [string, unknown]> = [["", value]]
  while (stack.length > 0) {
    const [path, v] = stack.pop()!
    const at = (key: string | number) => (path.length > 0 ? `${path}.${key}` : String(key))
    if (typeof v === "string") {
      if (v.includes(NUL)) found.push(path.length > 0 ? path : "body")
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([at(i), v[i]])
    } else if (typeof v === "object" && v !== null) {
      for (const [key, inner] of Object.entries(v).reverse()) {
        if (key.includes(NUL)) found.push(`${at(JSON.stringify(key))}: field name`)
        stack.push([at(key), inner])
      }
    }
  }
  return found
}

const hasJsonBody = (request: HttpServerRequest.HttpServerRequest) =>
  request.method !== "GET" && request.method !== "HEAD" && /json/i.test(request.headers["content-type"] ?? "")

/**
 * The 400 envelope when the request carries NUL, else undefined. Reads the body the handler
 * reads next (the platform caches it); a body that is no JSON is left to the handler's decoding.
 */
export const nulRefusal = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const query = new URLSearchParams(request.url.split("?")[1] ?? "")
  const fields = [...query].filter(([, v]) => v.includes(NUL)).map(([k]) => k)
  if (hasJsonBody(request)) {
    const body = yield* Effect.orElseSucceed(request.json, () => undefined)
    fields.push(...fieldsWithNul(body))
  }
  return fields.length === 0 ? undefined : validationFailed(fields.map((f) => `${f}: ${MESSAGE}`))
})

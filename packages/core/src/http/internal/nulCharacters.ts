/**
 * NUL characters in request text. PostgreSQL cannot store them in text, and no field of the API
 * has a use for them, so any request carrying one (in a JSON body string or key, or a query
 * parameter) is refused before decoding with 400 naming each field: the same answer on every
 * store.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect } from "effect"
import { validationFailed } from "../errors/ApiError.js"
import { isJsonMediaType } from "../mediaType.js"

const NUL = "\u0000"
const MESSAGE = "must not contain NUL characters"

/**
 * The paths (dot-joined, as validation messages name fields) of every string holding NUL.
 * Iterative (bodies may nest deep), and a path is only spelled out for a hit: building one per
 * element cost a second for a body of 500,000 elements (issue 31).
 */
export const fieldsWithNul = (value: unknown): ReadonlyArray<string> => {
  const found: string[] = []
  const path: Array<string | number> = []
  const at = (key: string | number) => [...path, key].join(".")
  // One frame per container: its keys (none for an array) and the next entry to visit.
  const frames: Array<{ readonly container: object; readonly keys: ReadonlyArray<string> | undefined; next: number }> =
    []
  const enter = (v: unknown): boolean => {
    if (typeof v === "string") return v.includes(NUL)
    if (Array.isArray(v)) frames.push({ container: v, keys: undefined, next: 0 })
    else if (typeof v === "object" && v !== null) frames.push({ container: v, keys: Object.keys(v), next: 0 })
    return false
  }
  if (enter(value)) return ["body"]
  while (frames.length > 0) {
    const frame = frames[frames.length - 1]!
    const size = frame.keys?.length ?? (frame.container as ReadonlyArray<unknown>).length
    if (frame.next >= size) {
      frames.pop()
      path.pop()
      continue
    }
    const key = frame.keys?.[frame.next] ?? frame.next
    frame.next++
    const inner = (frame.container as Record<string | number, unknown>)[key]
    if (typeof key === "string" && key.includes(NUL)) found.push(`${at(JSON.stringify(key))}: field name`)
    const depth = frames.length
    if (enter(inner)) found.push(at(key))
    else if (frames.length > depth) path.push(key)
  }
  return found
}

// Only what the platform itself reads as JSON (and caches): a body read here as text under another
// type would be read again as bytes by the decoder from a stream already drained, which never ends.
const hasJsonBody = (request: HttpServerRequest.HttpServerRequest) =>
  request.method !== "GET" && request.method !== "HEAD" && isJsonMediaType(request.headers["content-type"])

/**
 * The query parameters holding NUL. A query spells one `%00` (no other escape decodes to it), so
 * a query with neither that text nor a raw NUL is not parsed: most requests.
 */
const queryFieldsWithNul = (url: string): Array<string> => {
  const at = url.indexOf("?")
  if (at < 0 || !(url.includes("%00", at) || url.includes(NUL, at))) return []
  return [...new URLSearchParams(url.slice(at + 1))].filter(([, v]) => v.includes(NUL)).map(([k]) => k)
}

const refusalOf = (fields: ReadonlyArray<string>) =>
  fields.length === 0 ? undefined : validationFailed(fields.map((f) => `${f}: ${MESSAGE}`))

/**
 * The 400 envelope when the request carries NUL, else undefined. Reads the body the handler
 * reads next (the platform caches it); a body that is no JSON is left to the handler's decoding.
 * Runs on every request: a request without a JSON body costs no generator and no body read.
 */
export const nulRefusal = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
  const fields = queryFieldsWithNul(request.url)
  if (!hasJsonBody(request)) return Effect.succeed(refusalOf(fields))
  return Effect.gen(function* () {
    // JSON spells a NUL `\u0000` (a raw one is malformed): a body without that text has none.
    if ((yield* Effect.orElseSucceed(request.text, () => "")).includes("\\u0000")) {
      const body = yield* Effect.orElseSucceed(request.json, () => undefined)
      fields.push(...fieldsWithNul(body))
    }
    return refusalOf(fields)
  })
})

/**
 * Maps a concrete path to the template of the HttpApi endpoint it names
 * (`/v1/billing/api-keys/abc` → `/v1/billing/api-keys/:id`), for the host's metric labels and the
 * media-type rule. Runs on every request: literal routes are one map lookup; only the few
 * templates with parameters are tried as patterns.
 */
import type * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpMethod from "@effect/platform/HttpMethod"
import type { Option } from "effect"
import { reflectedEndpoints } from "./internal/reflectedEndpoints.js"

/** What `include` sees of an endpoint. */
export interface EndpointShape {
  readonly method: HttpMethod.HttpMethod
  readonly path: string
  readonly payloadSchema: Option.Option<unknown>
}

/** The pattern of a template: each `:param` is exactly one non-empty path segment. */
export const templatePattern = (template: string): RegExp =>
  new RegExp(`^${template.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z0-9_]+/g, "[^/]+")}$`)

/** The template of `method path` among `api`'s endpoints that `include` keeps, or undefined. */
export const routeMatcher = (
  api: HttpApi.HttpApi.Any,
  include: (endpoint: EndpointShape) => boolean = () => true
): ((method: string, path: string) => string | undefined) => {
  const literal = new Map<string, string>()
  const patterns: Array<{ method: string; template: string; pattern: RegExp }> = []
  for (const { endpoint } of reflectedEndpoints(api)) {
    if (!include(endpoint)) continue
    if (!endpoint.path.includes(":")) literal.set(`${endpoint.method} ${endpoint.path}`, endpoint.path)
    else patterns.push({ method: endpoint.method, template: endpoint.path, pattern: templatePattern(endpoint.path) })
  }
  return (method, path) =>
    literal.get(`${method} ${path}`) ?? patterns.find((p) => p.method === method && p.pattern.test(path))?.template
}

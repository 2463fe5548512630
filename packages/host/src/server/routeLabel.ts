/**
 * Maps a concrete path to its route template for metric labels (`/v1/billing/api-keys/:id`), so
 * label cardinality stays bounded whatever ids clients send. Runs on every request: literal
 * routes are one map lookup; only the few templates with parameters are tried as patterns.
 */
import { HttpApi } from "@effect/platform"

export const makeRouteLabeler = (api: HttpApi.HttpApi.Any, extra: ReadonlyArray<string>) => {
  const literal = new Map<string, string>()
  const patterns: Array<{ method: string; template: string; pattern: RegExp }> = []
  HttpApi.reflect(api as never, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      if (!endpoint.path.includes(":")) {
        literal.set(`${endpoint.method} ${endpoint.path}`, endpoint.path)
        return
      }
      const pattern = new RegExp(
        `^${endpoint.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z0-9_]+/g, "[^/]+")}$`
      )
      patterns.push({ method: endpoint.method, template: endpoint.path, pattern })
    }
  })
  const operational = new Set(extra)
  return (method: string, path: string): string =>
    literal.get(`${method} ${path}`) ??
    (operational.has(path) ? path : undefined) ??
    patterns.find((t) => t.method === method && t.pattern.test(path))?.template ??
    "unmatched"
}

/**
 * Maps a concrete path to its route template for metric labels (`/v1/billing/api-keys/:id`), so
 * label cardinality stays bounded whatever ids clients send.
 */
import { HttpApi } from "@effect/platform"

export const makeRouteLabeler = (api: HttpApi.HttpApi.Any, extra: ReadonlyArray<string>) => {
  const templates: Array<{ method: string | undefined; template: string; pattern: RegExp }> = []
  HttpApi.reflect(api as never, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const pattern = new RegExp(`^${endpoint.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z0-9_]+/g, "[^/]+")}$`)
      templates.push({ method: endpoint.method, template: endpoint.path, pattern })
    }
  })
  for (const path of extra) templates.push({ method: undefined, template: path, pattern: new RegExp(`^${path}$`) })
  return (method: string, path: string): string =>
    templates.find((t) => (t.method === undefined || t.method === method) && t.pattern.test(path))?.template ?? "unmatched"
}

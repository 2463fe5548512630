/**
 * Maps a concrete path to its route template for metric labels (`/v1/billing/api-keys/:id`), so
 * label cardinality stays bounded whatever ids clients send: an API route's template, one of the
 * operational paths, or "unmatched".
 */
import type * as HttpApi from "@effect/platform/HttpApi"
import { routeMatcher } from "@frank/core/http"

export const makeRouteLabeler = (api: HttpApi.HttpApi.Any, extra: ReadonlyArray<string>) => {
  const match = routeMatcher(api)
  const operational = new Set(extra)
  return (method: string, path: string): string => match(method, path) ?? (operational.has(path) ? path : "unmatched")
}

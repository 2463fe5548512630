/**
 * Facts about every route, read once from the HttpApi definition: the scope an API key needs
 * (the `RequiredScope` annotation) and whether the route belongs to the cabinet session. The
 * security middleware enforces them and the scope reference is served from them, so the two can
 * never disagree.
 */
import type * as HttpApi from "@effect/platform/HttpApi"
import { Context, Option } from "effect"
import { allScopes, scopeDescriptions } from "../access/Scope.js"
import type { PartnerApi } from "./PartnerApi.js"
import { reflectedEndpoints } from "./internal/reflectedEndpoints.js"
import { RequiredScope, SessionAuth } from "./internal/Security.js"

export interface RouteFacts {
  readonly method: string
  readonly path: string
  /** A scope name, `full` (no scope opens it), or undefined (no API key involved). */
  readonly requiredScope: string | undefined
  readonly sessionOnly: boolean
}

export const routeKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`

/** Each route's method, path, scopes and rate-limit facts, read from an HttpApi. */
export const routeTable = (api: typeof PartnerApi | HttpApi.HttpApi.Any): ReadonlyMap<string, RouteFacts> => {
  const table = new Map<string, RouteFacts>()
  for (const { endpoint, mergedAnnotations, middleware } of reflectedEndpoints(api)) {
    const facts: RouteFacts = {
      method: endpoint.method,
      path: endpoint.path,
      requiredScope: Option.getOrUndefined(Context.getOption(mergedAnnotations, RequiredScope)),
      sessionOnly: middleware.has(SessionAuth as never)
    }
    table.set(routeKey(endpoint.method, endpoint.path), facts)
  }
  return table
}

export interface ScopeReference {
  readonly scopes: ReadonlyArray<{
    scope: string
    description: string
    operations: ReadonlyArray<{ method: string; path: string }>
  }>
  readonly fullKeyOnly: ReadonlyArray<{ method: string; path: string }>
  readonly sessionOnly: ReadonlyArray<{ method: string; path: string }>
}

/** `GET /auth/api-keys/operations`: the current scopes and the methods each opens. */
export const scopeReference = (table: ReadonlyMap<string, RouteFacts>): ScopeReference => {
  const routes = [...table.values()].sort((a, b) =>
    a.path === b.path ? a.method.localeCompare(b.method) : a.path.localeCompare(b.path)
  )
  const op = (r: RouteFacts) => ({ method: r.method, path: r.path })
  return {
    scopes: allScopes.map((scope) => ({
      scope,
      description: scopeDescriptions[scope],
      operations: routes.filter((r) => r.requiredScope === scope).map(op)
    })),
    fullKeyOnly: routes.filter((r) => r.requiredScope === "full").map(op),
    sessionOnly: routes.filter((r) => r.sessionOnly).map(op)
  }
}

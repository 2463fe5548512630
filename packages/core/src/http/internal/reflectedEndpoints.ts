/**
 * Every endpoint of an HttpApi as `HttpApi.reflect` hands it over, reflected once per API and
 * kept. Several rules read the same API while the host starts (the route tables of the security
 * middleware and the scope reference, the media-type rule, idempotency's spec-keyed routes, the
 * metric labels): each reflection walks every endpoint's success and error schemas, so reading
 * one list instead of reflecting seven times takes that work off the start.
 */
import * as HttpApi from "@effect/platform/HttpApi"

/** What `HttpApi.reflect` tells of one endpoint. */
export type ReflectedEndpoint = Parameters<Parameters<typeof HttpApi.reflect>[1]["onEndpoint"]>[0]

const reflected = new WeakMap<HttpApi.HttpApi.Any, ReadonlyArray<ReflectedEndpoint>>()

/** The endpoints of `api` in its order; the API is reflected on the first call only. */
export const reflectedEndpoints = (api: HttpApi.HttpApi.Any): ReadonlyArray<ReflectedEndpoint> => {
  const known = reflected.get(api)
  if (known !== undefined) return known
  const endpoints: Array<ReflectedEndpoint> = []
  HttpApi.reflect(api as never, { onGroup: () => {}, onEndpoint: (e) => void endpoints.push(e) })
  reflected.set(api, endpoints)
  return endpoints
}

/**
 * The typed client of the partner API, derived from the same HttpApi definition the server uses.
 * Credentials are attached here because HttpApiClient never sends security values by itself.
 */
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type { Effect } from "effect"
import { PartnerApi } from "./PartnerApi.js"

export type PartnerCredentials =
  | { readonly apiKey: string }
  | { readonly bearer: string }
  | { readonly sessionToken: string }
  | { readonly none: true }

const attach = (credentials: PartnerCredentials) => (request: HttpClientRequest.HttpClientRequest) => {
  if ("apiKey" in credentials) return HttpClientRequest.setHeader(request, "x-api-key", credentials.apiKey)
  if ("bearer" in credentials) return HttpClientRequest.bearerToken(request, credentials.bearer)
  if ("sessionToken" in credentials)
    return HttpClientRequest.setHeader(request, "cookie", `service_token=${credentials.sessionToken}`)
  return request
}

/** A client for `baseUrl`; needs an `HttpClient` (FetchHttpClient.layer or NodeHttpClient.layer). */
export const makePartnerClient = (baseUrl: string, credentials: PartnerCredentials) =>
  HttpApiClient.make(PartnerApi, {
    baseUrl,
    transformClient: HttpClient.mapRequest(attach(credentials))
  })

export type PartnerClient = Effect.Effect.Success<ReturnType<typeof makePartnerClient>>

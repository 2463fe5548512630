/**
 * Security of the partner API: API keys (`X-API-Key` or `Authorization: Bearer`) and cabinet
 * sessions (cookie `service_token`). The implementations live in `SecurityLive.ts`; here are the
 * contract pieces the endpoints and the OpenAPI document refer to.
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import { Context, Schema } from "effect"
import {
  BadRequest,
  Conflict,
  Forbidden,
  NotFound,
  PaymentRequired,
  TooManyRequests,
  Unauthorized,
  UnprocessableEntity
} from "../errors/ApiError.js"
import type { PartnerId } from "../../EntityIds.js"

/** The authenticated API key of the current request. */
export class CurrentApiKey extends Context.Tag("@frank/core/CurrentApiKey")<
  CurrentApiKey,
  {
    readonly partnerId: PartnerId
    readonly keyId: string
    readonly access: "full" | "restricted"
    readonly scopes: ReadonlyArray<string>
  }
>() {}

/** The authenticated cabinet session of the current request. */
export class CurrentSession extends Context.Tag("@frank/core/CurrentSession")<
  CurrentSession,
  { readonly partnerId: PartnerId }
>() {}

/** The partner of a request that a full API key or a cabinet session authenticated (`PartnerAuth`). */
export class CurrentPartner extends Context.Tag("@frank/core/CurrentPartner")<
  CurrentPartner,
  { readonly partnerId: PartnerId }
>() {}

/**
 * What an endpoint requires of an API key: a scope, or `full` for operations no scope opens
 * (payment links, invoices). The security middleware enforces it; the scope reference
 * (`GET /auth/api-keys/operations`) is derived from the same annotations.
 */
export class RequiredScope extends Context.Tag("@frank/core/RequiredScope")<RequiredScope, string>() {}

// Authentication maps domain errors through the same table as handlers, so it may answer any envelope.
const AuthFailure = Schema.Union(
  BadRequest,
  Unauthorized,
  PaymentRequired,
  Forbidden,
  NotFound,
  Conflict,
  UnprocessableEntity,
  TooManyRequests
)

export class ApiKeyAuth extends HttpApiMiddleware.Tag<ApiKeyAuth>()("ApiKeyAuth", {
  failure: AuthFailure,
  provides: CurrentApiKey,
  security: {
    apiKey: HttpApiSecurity.apiKey({ key: "X-API-Key", in: "header" }),
    bearer: HttpApiSecurity.bearer
  }
}) {}

export class SessionAuth extends HttpApiMiddleware.Tag<SessionAuth>()("SessionAuth", {
  failure: AuthFailure,
  provides: CurrentSession,
  security: {
    session: HttpApiSecurity.apiKey({ key: "service_token", in: "cookie" })
  }
}) {}

/**
 * A cabinet session or an API key (which the endpoint's `RequiredScope` may restrict): the request
 * presenting a key is judged as a key, any other as a session.
 */
export class PartnerAuth extends HttpApiMiddleware.Tag<PartnerAuth>()("PartnerAuth", {
  failure: AuthFailure,
  provides: CurrentPartner,
  security: {
    apiKey: HttpApiSecurity.apiKey({ key: "X-API-Key", in: "header" }),
    bearer: HttpApiSecurity.bearer,
    session: HttpApiSecurity.apiKey({ key: "service_token", in: "cookie" })
  }
}) {}

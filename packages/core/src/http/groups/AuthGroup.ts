/**
 * Credential check for automation tools.
 */
import { IdempotencyClaim } from "../IdempotencyClaim.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ApiKeyAuth, RequiredScope } from "../internal/Security.js"

export const AuthCheck = Schema.Struct({
  ok: Schema.Literal(true),
  partnerId: Schema.String,
  keyId: Schema.String,
  access: Schema.Literal("full", "restricted"),
  scopes: Schema.Array(Schema.String)
}).annotations({ identifier: "AuthCheck" })

/** The partner API's auth endpoints (key check, cabinet sign-in and sessions). */
export class AuthGroup extends HttpApiGroup.make("auth")
  .middleware(IdempotencyClaim)
  .add(
    HttpApiEndpoint.get("check", "/v1/auth/check")
      .addSuccess(AuthCheck)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "usage:read")
  )
  .annotate(OpenApi.Title, "Auth") {}

/**
 * Credential check for automation tools.
 */
import { IdempotencyClaim } from "../IdempotencyClaim.js"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
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

/**
 * API keys: listing with a key, issuing / changing / revoking from a cabinet session.
 */
import { IdempotencyClaim } from "../IdempotencyClaim.js"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { allScopes } from "../../access/Scope.js"
import { BoundedArray, NullableBoundedArray } from "../../internal/BoundedArray.js"
import { BadRequest, NotFound } from "../errors/ApiError.js"
import { BodyInt, requestParseOptions } from "../internal/coerce.js"
import { ApiKeyAuth, RequiredScope, SessionAuth } from "../internal/Security.js"

export const ApiKeyView = Schema.Struct({
  id: Schema.String,
  prefix: Schema.String.annotations({ description: "First 16 characters of the raw key" }),
  label: Schema.NullOr(Schema.String),
  active: Schema.Boolean,
  access: Schema.Literal("full", "restricted"),
  scopes: Schema.NullOr(Schema.Array(Schema.String)).annotations({
    description: "Scopes of the key; null for other keys when the caller is a restricted key"
  }),
  createdAt: Schema.String,
  lastUsedAt: Schema.NullOr(Schema.String),
  expiresAt: Schema.NullOr(Schema.String),
  revokedAt: Schema.NullOr(Schema.String),
  revokeReason: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ApiKey" })
export type ApiKeyView = typeof ApiKeyView.Type

export const IssuedApiKey = Schema.Struct({
  ...ApiKeyView.fields,
  key: Schema.String.annotations({ description: "The raw key `svc_live_<64 hex>`, returned only now" })
}).annotations({ identifier: "IssuedApiKey" })

export const ApiKeyList = Schema.Struct({ items: Schema.Array(ApiKeyView) }).annotations({ identifier: "ApiKeyList" })

/** At most one of each scope name: a longer list can only repeat one. */
const scopesMessage = `must list at most ${allScopes.length} scopes`
const ScopeList = BoundedArray(Schema.String, allScopes.length, scopesMessage)
const NullableScopeList = NullableBoundedArray(Schema.String, allScopes.length, scopesMessage)

export const IssueApiKeyRequest = Schema.Struct({
  label: Schema.optional(
    Schema.String.pipe(Schema.maxLength(120, { message: () => "must be at most 120 characters" }))
  ),
  // Range violations answer API_KEY_EXPIRY_OUT_OF_RANGE, so only integer-ness is checked here.
  expiresInDays: Schema.optional(BodyInt(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)),
  scopes: Schema.optionalWith(ScopeList, { exact: true })
}).annotations({ identifier: "IssueApiKeyRequest", ...requestParseOptions })

export const UpdateApiKeyRequest = Schema.Struct({
  label: Schema.optional(
    Schema.String.pipe(Schema.maxLength(120, { message: () => "must be at most 120 characters" }))
  ),
  scopes: Schema.optionalWith(NullableScopeList, { exact: true }),
  expiresInDays: Schema.optional(Schema.Unknown).annotations({
    description: "Not changeable: answers API_KEY_EXPIRY_IMMUTABLE"
  })
}).annotations({ identifier: "UpdateApiKeyRequest", ...requestParseOptions })

export const ScopeOperations = Schema.Struct({
  scopes: Schema.Array(
    Schema.Struct({
      scope: Schema.String,
      description: Schema.String,
      operations: Schema.Array(Schema.Struct({ method: Schema.String, path: Schema.String }))
    })
  ),
  fullKeyOnly: Schema.Array(Schema.Struct({ method: Schema.String, path: Schema.String })),
  sessionOnly: Schema.Array(Schema.Struct({ method: Schema.String, path: Schema.String }))
}).annotations({ identifier: "ScopeOperations" })

export const RevokeResult = Schema.Struct({ id: Schema.String, revoked: Schema.Boolean }).annotations({
  identifier: "RevokeResult"
})

const idParam = HttpApiSchema.param("id", Schema.String)

/** The partner API's API key endpoints. */
export class KeysGroup extends HttpApiGroup.make("keys")
  .middleware(IdempotencyClaim)
  .add(
    HttpApiEndpoint.get("list", "/v1/billing/api-keys")
      .addSuccess(ApiKeyList)
      .middleware(ApiKeyAuth)
      .annotate(RequiredScope, "billing:read")
  )
  .add(
    HttpApiEndpoint.post("issue", "/v1/billing/api-keys")
      .setPayload(IssueApiKeyRequest)
      .addSuccess(IssuedApiKey, { status: 201 })
      .addError(BadRequest)
      .middleware(SessionAuth)
  )
  .add(
    HttpApiEndpoint.patch("update")`/v1/billing/api-keys/${idParam}`
      .setPayload(UpdateApiKeyRequest)
      .addSuccess(ApiKeyView)
      .addError(BadRequest)
      .addError(NotFound)
      .middleware(SessionAuth)
  )
  .add(HttpApiEndpoint.del("revoke")`/v1/billing/api-keys/${idParam}`.addSuccess(RevokeResult).middleware(SessionAuth))
  .add(
    HttpApiEndpoint.del("revokeWithReason")`/auth/api-keys/${idParam}`
      .setUrlParams(
        Schema.Struct({ reason: Schema.optional(Schema.String.pipe(Schema.maxLength(500))) }).annotations(
          requestParseOptions
        )
      )
      .addSuccess(RevokeResult)
      .middleware(SessionAuth)
  )
  .add(
    HttpApiEndpoint.get("operations", "/auth/api-keys/operations").addSuccess(ScopeOperations).middleware(SessionAuth)
  )
  .annotate(OpenApi.Title, "API keys") {}

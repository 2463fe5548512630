/**
 * Typed failures of keys, sessions and partners. Each carries its machine code and HTTP status,
 * which the HTTP layer copies into the error envelope.
 */
import { Schema } from "effect"
import { codedErrorFields } from "../codedError.js"

const fields = codedErrorFields

/** Key missing, unknown or deactivated. */
export class ApiKeyInvalid extends Schema.TaggedError<ApiKeyInvalid>()(
  "ApiKeyInvalid",
  fields("API_KEY_INVALID", 401)
) {}
/** The API key was valid but its expiry has passed (API_KEY_EXPIRED, 401). */
export class ApiKeyExpired extends Schema.TaggedError<ApiKeyExpired>()(
  "ApiKeyExpired",
  fields("API_KEY_EXPIRED", 401)
) {}
export class ApiKeyScopeRequired extends Schema.TaggedError<ApiKeyScopeRequired>()(
  "ApiKeyScopeRequired",
  fields("API_KEY_SCOPE_REQUIRED", 403)
) {}
/** A legacy key tried an operation only live keys may do (LEGACY_KEY_FORBIDDEN). */
export class LegacyKeyForbidden extends Schema.TaggedError<LegacyKeyForbidden>()(
  "LegacyKeyForbidden",
  fields("LEGACY_KEY_FORBIDDEN", 403)
) {}
export class ApiKeyScopeUnknown extends Schema.TaggedError<ApiKeyScopeUnknown>()(
  "ApiKeyScopeUnknown",
  fields("API_KEY_SCOPE_UNKNOWN", 400)
) {}
export class ApiKeyScopeEmpty extends Schema.TaggedError<ApiKeyScopeEmpty>()(
  "ApiKeyScopeEmpty",
  fields("API_KEY_SCOPE_EMPTY", 400)
) {}
export class ApiKeyScopeDowngradeForbidden extends Schema.TaggedError<ApiKeyScopeDowngradeForbidden>()(
  "ApiKeyScopeDowngradeForbidden",
  fields("API_KEY_SCOPE_DOWNGRADE_FORBIDDEN", 400)
) {}
export class ApiKeyExpiryOutOfRange extends Schema.TaggedError<ApiKeyExpiryOutOfRange>()(
  "ApiKeyExpiryOutOfRange",
  fields("API_KEY_EXPIRY_OUT_OF_RANGE", 400)
) {}
export class ApiKeyExpiryImmutable extends Schema.TaggedError<ApiKeyExpiryImmutable>()(
  "ApiKeyExpiryImmutable",
  fields("API_KEY_EXPIRY_IMMUTABLE", 400)
) {}
/** The partner already holds the most active keys allowed (API_KEY_QUOTA_EXCEEDED, 400). */
export class ApiKeyQuotaExceeded extends Schema.TaggedError<ApiKeyQuotaExceeded>()(
  "ApiKeyQuotaExceeded",
  fields("API_KEY_QUOTA_EXCEEDED", 400)
) {}
/** No key with that id belongs to the partner (API_KEY_NOT_FOUND, 404). */
export class ApiKeyNotFound extends Schema.TaggedError<ApiKeyNotFound>()(
  "ApiKeyNotFound",
  fields("API_KEY_NOT_FOUND", 404)
) {}
/** Cookie `service_token` missing or unknown. */
export class SessionRequired extends Schema.TaggedError<SessionRequired>()(
  "SessionRequired",
  fields("SESSION_REQUIRED", 401)
) {}
/** The cabinet session has expired (SESSION_EXPIRED, 401). */
export class SessionExpired extends Schema.TaggedError<SessionExpired>()(
  "SessionExpired",
  fields("SESSION_EXPIRED", 401)
) {}
/** An API key was sent to an operation of the cabinet session. */
export class SessionOnly extends Schema.TaggedError<SessionOnly>()(
  "SessionOnly",
  fields("SESSION_REQUIRED_NOT_API_KEY", 403)
) {}
/** A cabinet sign-in link that is unknown, already used or past its 15 minutes. */
export class SignInLinkInvalid extends Schema.TaggedError<SignInLinkInvalid>()("SignInLinkInvalid", {
  ...fields("SIGN_IN_LINK_INVALID", 401),
  reason: Schema.Literal("unknown", "used", "expired")
}) {}
/** No partner has that id (PARTNER_NOT_FOUND). */
export class PartnerNotFound extends Schema.TaggedError<PartnerNotFound>()(
  "PartnerNotFound",
  fields("PARTNER_NOT_FOUND", 404)
) {}

export type KeyIssueError = ApiKeyScopeUnknown | ApiKeyScopeEmpty | ApiKeyExpiryOutOfRange | ApiKeyQuotaExceeded
export type KeyChangeError =
  | ApiKeyScopeUnknown
  | ApiKeyScopeEmpty
  | ApiKeyScopeDowngradeForbidden
  | ApiKeyExpiryImmutable
  | ApiKeyNotFound
export type KeyAuthError = ApiKeyInvalid | ApiKeyExpired | LegacyKeyForbidden
export type SessionAuthError = SessionRequired | SessionExpired

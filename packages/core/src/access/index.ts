/**
 * The `Access` namespace: partners, API keys and their scopes, cabinet sessions and sign-in, and the
 * `Access` service that checks a key or a session.
 */
export { Access } from "./Access.js"
export {
  ApiKeyExpired,
  ApiKeyInvalid,
  ApiKeyNotFound,
  ApiKeyQuotaExceeded,
  LegacyKeyForbidden,
  PartnerNotFound,
  SessionExpired,
  SessionRequired
} from "./AccessError.js"
export { type ApiKeyRecord, type KeyView, LAST_USED_RESOLUTION_MS } from "./ApiKey.js"
export type { Partner } from "./Partner.js"
export { Scope } from "./Scope.js"
export { Secrets } from "./Secrets.js"
export {
  MAX_SESSION_TTL_SECONDS,
  type SessionRecord,
  type SignInRecord,
  type SignInRedemption
} from "./Session.js"

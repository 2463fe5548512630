/**
 * API keys: the stored record, the raw formats, and the pure rules of issuing, changing and
 * authenticating (spec "API key", "Scopes", docs/contract.md §5 key rows).
 */
import type { KeyId, PartnerId } from "../EntityIds.js"
import { Either } from "effect"
import {
  ApiKeyExpired,
  ApiKeyExpiryImmutable,
  ApiKeyExpiryOutOfRange,
  ApiKeyInvalid,
  ApiKeyQuotaExceeded,
  ApiKeyScopeDowngradeForbidden,
  ApiKeyScopeEmpty,
  ApiKeyScopeUnknown,
  type KeyAuthError,
  type KeyChangeError,
  type KeyIssueError,
  LegacyKeyForbidden
} from "./AccessError.js"
import { allScopes, isScope, type Scope } from "./Scope.js"
import { DAY_MS, MINUTE_MS } from "../timeUnits.js"
import { iso, isoOrNull } from "../isoTime.js"

export const MAX_ACTIVE_KEYS = 20
export const MAX_LABEL_LENGTH = 120
export const MIN_EXPIRY_DAYS = 1
export const MAX_EXPIRY_DAYS = 365
/** Writes of lastUsedAt are throttled to one per key per minute. */
export const LAST_USED_RESOLUTION_MS = MINUTE_MS

export const LIVE_KEY = /^svc_live_[0-9a-f]{64}$/
export const LEGACY_KEY = /^svc_[0-9a-f]{32}$/

/** An API key as stored: its hash, scopes, expiry and last use, never the secret itself. */
export interface ApiKeyRecord {
  readonly id: KeyId
  readonly partnerId: PartnerId
  /** `live` keys are issued from the cabinet; `legacy` keys exist only to be refused with 403. */
  readonly kind: "live" | "legacy"
  readonly keyHash: string
  readonly prefix: string
  readonly label: string | null
  readonly access: "full" | "restricted"
  /** The scopes a restricted key holds; empty for full keys (which hold all). */
  readonly scopes: ReadonlyArray<Scope>
  readonly createdAt: number
  readonly lastUsedAt: number | null
  readonly expiresAt: number | null
  readonly revokedAt: number | null
  readonly revokeReason: string | null
}

export const isExpired = (k: ApiKeyRecord, now: number): boolean => k.expiresAt !== null && k.expiresAt <= now
export const isActive = (k: ApiKeyRecord, now: number): boolean =>
  k.kind === "live" && k.revokedAt === null && !isExpired(k, now)
export const effectiveScopes = (k: ApiKeyRecord): ReadonlyArray<Scope> => (k.access === "full" ? allScopes : k.scopes)

/** Validates a scope list: every name known, `*` included in "unknown", none for an empty list. */
const checkScopes = (
  scopes: ReadonlyArray<string>
): Either.Either<ReadonlyArray<Scope>, ApiKeyScopeUnknown | ApiKeyScopeEmpty> => {
  const unknown = scopes.filter((s) => !isScope(s))
  if (unknown.length > 0)
    return Either.left(
      new ApiKeyScopeUnknown({
        message: `unknown scope(s): ${unknown.map((s) => JSON.stringify(s)).join(", ")}; allowed: ${allScopes.join(", ")}`
      })
    )
  if (scopes.length === 0)
    return Either.left(
      new ApiKeyScopeEmpty({ message: "a restricted key needs at least one scope; omit scopes for a full key" })
    )
  return Either.right([...new Set(scopes as ReadonlyArray<Scope>)].sort())
}

export interface IssueKeyCommand {
  readonly label?: string | undefined
  readonly expiresInDays?: number | undefined
  /** Omitted: a full key. */
  readonly scopes?: ReadonlyArray<string> | undefined
}

export interface NewKeyMaterial {
  readonly id: KeyId
  readonly raw: string
  readonly keyHash: string
}

/** Decides an issue against the partner's current keys (read under the partner's lock). */
export const decideIssue = (
  partnerId: PartnerId,
  existing: ReadonlyArray<ApiKeyRecord>,
  cmd: IssueKeyCommand,
  material: NewKeyMaterial,
  now: number
): Either.Either<ApiKeyRecord, KeyIssueError> => {
  let scopes: ReadonlyArray<Scope> = []
  if (cmd.scopes !== undefined) {
    const checked = checkScopes(cmd.scopes)
    if (Either.isLeft(checked)) return Either.left(checked.left)
    scopes = checked.right
  }
  if (
    cmd.expiresInDays !== undefined &&
    (!Number.isInteger(cmd.expiresInDays) || cmd.expiresInDays < MIN_EXPIRY_DAYS || cmd.expiresInDays > MAX_EXPIRY_DAYS)
  )
    return Either.left(
      new ApiKeyExpiryOutOfRange({
        message: `expiresInDays must be an integer between ${MIN_EXPIRY_DAYS} and ${MAX_EXPIRY_DAYS}`
      })
    )
  const active = existing.filter((k) => isActive(k, now)).length
  if (active >= MAX_ACTIVE_KEYS)
    return Either.left(
      new ApiKeyQuotaExceeded({ message: `at most ${MAX_ACTIVE_KEYS} active keys per account; revoke one first` })
    )
  return Either.right({
    id: material.id,
    partnerId,
    kind: "live",
    keyHash: material.keyHash,
    prefix: material.raw.slice(0, 16),
    label: cmd.label ?? null,
    access: cmd.scopes === undefined ? "full" : "restricted",
    scopes,
    createdAt: now,
    lastUsedAt: null,
    expiresAt: cmd.expiresInDays === undefined ? null : now + cmd.expiresInDays * DAY_MS,
    revokedAt: null,
    revokeReason: null
  })
}

export interface ChangeKeyCommand {
  readonly label?: string | undefined
  /** `null` asks for full access, which is never granted back. */
  readonly scopes?: ReadonlyArray<string> | null | undefined
  /** Present at all: expiry cannot be changed. */
  readonly expiresInDays?: unknown
}

/** Scopes can only be narrowed: a restricted key never regains a scope or full access. */
export const decideChange = (key: ApiKeyRecord, cmd: ChangeKeyCommand): Either.Either<ApiKeyRecord, KeyChangeError> => {
  if (cmd.expiresInDays !== undefined)
    return Either.left(new ApiKeyExpiryImmutable({ message: "a key's expiry cannot be changed; issue a new key" }))
  let next: ApiKeyRecord = cmd.label === undefined ? key : { ...key, label: cmd.label }
  if (cmd.scopes === null) {
    if (key.access === "restricted")
      return Either.left(
        new ApiKeyScopeDowngradeForbidden({ message: "a restricted key cannot be made full again; issue a new key" })
      )
  } else if (cmd.scopes !== undefined) {
    const checked = checkScopes(cmd.scopes)
    if (Either.isLeft(checked)) return Either.left(checked.left)
    const held = new Set(effectiveScopes(key))
    const added = checked.right.filter((s) => !held.has(s))
    if (added.length > 0)
      return Either.left(
        new ApiKeyScopeDowngradeForbidden({
          message: `scopes can only be narrowed; the key lacks: ${added.join(", ")}`
        })
      )
    next = { ...next, access: "restricted", scopes: checked.right }
  }
  return Either.right(next)
}

/** Authentication of a looked-up key: deactivated and expired keys are refused with their codes. */
export const checkAuthenticated = (
  key: ApiKeyRecord | undefined,
  now: number
): Either.Either<ApiKeyRecord, KeyAuthError> => {
  if (key === undefined) return Either.left(new ApiKeyInvalid({ message: "API key is unknown" }))
  if (key.kind === "legacy")
    return Either.left(
      new LegacyKeyForbidden({ message: "legacy service keys are no longer accepted; issue a key in the cabinet" })
    )
  if (key.revokedAt !== null) return Either.left(new ApiKeyInvalid({ message: "API key is deactivated" }))
  if (isExpired(key, now)) return Either.left(new ApiKeyExpired({ message: "API key has expired" }))
  return Either.right(key)
}

/** An API key as shown to its partner: prefix, label, scopes and dates, without the secret. */
export interface KeyView {
  readonly id: KeyId
  readonly prefix: string
  readonly label: string | null
  readonly active: boolean
  readonly access: "full" | "restricted"
  readonly scopes: ReadonlyArray<Scope> | null
  readonly createdAt: string
  readonly lastUsedAt: string | null
  readonly expiresAt: string | null
  readonly revokedAt: string | null
  readonly revokeReason: string | null
}

/**
 * The listing view. A restricted caller sees its own scopes and `null` for every other key;
 * a full key or a cabinet session sees all.
 */
export const keyView = (
  k: ApiKeyRecord,
  now: number,
  viewer: { readonly restrictedKeyId?: string | undefined } = {}
): KeyView => ({
  id: k.id,
  prefix: k.prefix,
  label: k.label,
  active: isActive(k, now),
  access: k.access,
  scopes: viewer.restrictedKeyId !== undefined && viewer.restrictedKeyId !== k.id ? null : effectiveScopes(k),
  createdAt: iso(k.createdAt),
  lastUsedAt: isoOrNull(k.lastUsedAt),
  expiresAt: isoOrNull(k.expiresAt),
  revokedAt: isoOrNull(k.revokedAt),
  revokeReason: k.revokeReason
})

/**
 * The access service: partners, cabinet sessions and API keys. Credentials are re-read from the
 * store on every request, so a revocation applies to the very next request on every instance.
 */
import { KeyId, PartnerId } from "../EntityIds.js"
import { Clock, Context, Effect, Either, Layer } from "effect"
import { Ids } from "../internal/ids.js"
import type { StoreError } from "../StoreError.js"
import {
  type ApiKeyRecord,
  type ChangeKeyCommand,
  checkAuthenticated,
  decideChange,
  decideIssue,
  type IssueKeyCommand,
  type KeyView,
  keyView,
  LAST_USED_RESOLUTION_MS,
  LEGACY_KEY,
  LIVE_KEY
} from "./ApiKey.js"
import {
  ApiKeyInvalid,
  ApiKeyNotFound,
  type KeyAuthError,
  type KeyChangeError,
  type KeyIssueError,
  PartnerNotFound,
  SessionExpired,
  SignInLinkInvalid,
  SessionRequired,
  type SessionAuthError
} from "./AccessError.js"
import { ApiKeyStore } from "./ApiKeyStore.js"
import { type Partner, PartnerStore } from "./Partner.js"
import { Secrets, toBase64Url, toHex } from "./Secrets.js"
import { DEFAULT_SESSION_TTL_SECONDS, MAX_SESSION_TTL_SECONDS, SIGN_IN_TTL_SECONDS, SessionStore } from "./Session.js"

export interface IssuedKey {
  readonly raw: string
  readonly view: KeyView
}

/** A session just opened: its token (shown once), expiry, and id (what the audit log names). */
export interface OpenedSession {
  readonly token: string
  readonly expiresAt: number
  readonly sessionId: string
}

export interface AccessShape {
  readonly createPartner: (name: string) => Effect.Effect<Partner, StoreError>
  readonly getPartner: (id: PartnerId) => Effect.Effect<Partner, PartnerNotFound | StoreError>
  readonly createSession: (
    partnerId: PartnerId,
    ttlSeconds?: number
  ) => Effect.Effect<OpenedSession, PartnerNotFound | StoreError>
  /** A one-time cabinet sign-in token (15 minutes) that opens a session of `ttlSeconds`. */
  readonly createSignIn: (
    partnerId: PartnerId,
    ttlSeconds?: number
  ) => Effect.Effect<{ token: string; expiresAt: number }, PartnerNotFound | StoreError>
  /** Exchanges a sign-in token for a new session; the token cannot be used again. */
  readonly redeemSignIn: (
    token: string
  ) => Effect.Effect<OpenedSession & { readonly partnerId: PartnerId }, SignInLinkInvalid | StoreError>
  /** Sign-out: the session's token stops working at once. */
  readonly endSession: (token: string) => Effect.Effect<void, StoreError>
  readonly authenticateSession: (
    token: string
  ) => Effect.Effect<{ partnerId: PartnerId; sessionId: string }, SessionAuthError | StoreError>
  readonly authenticateKey: (raw: string) => Effect.Effect<ApiKeyRecord, KeyAuthError | StoreError>
  readonly issueKey: (
    partnerId: PartnerId,
    cmd: IssueKeyCommand
  ) => Effect.Effect<IssuedKey, KeyIssueError | StoreError>
  readonly issueLegacyKey: (partnerId: PartnerId) => Effect.Effect<string, PartnerNotFound | StoreError>
  readonly changeKey: (
    partnerId: PartnerId,
    id: KeyId,
    cmd: ChangeKeyCommand
  ) => Effect.Effect<KeyView, KeyChangeError | StoreError>
  readonly revokeKey: (
    partnerId: PartnerId,
    id: KeyId,
    reason?: string | undefined
  ) => Effect.Effect<boolean, StoreError>
  readonly listKeys: (
    partnerId: PartnerId,
    viewer: { readonly restrictedKeyId?: string | undefined }
  ) => Effect.Effect<ReadonlyArray<KeyView>, StoreError>
}

/** The access service: checks API keys and cabinet sessions, issues and revokes keys, signs partners in. */
export class Access extends Context.Tag("@frank/core/Access")<Access, AccessShape>() {
  static readonly layer = Layer.effect(
    Access,
    Effect.gen(function* () {
      const partners = yield* PartnerStore
      const keys = yield* ApiKeyStore
      const sessions = yield* SessionStore
      const secrets = yield* Secrets
      const ids = yield* Ids

      const getPartner = (id: PartnerId) =>
        Effect.flatMap(partners.get(id), (p) =>
          p === undefined ? Effect.fail(new PartnerNotFound({ message: `no partner ${id}` })) : Effect.succeed(p)
        )

      const clampTtl = (ttlSeconds: number) => Math.min(Math.max(1, Math.floor(ttlSeconds)), MAX_SESSION_TTL_SECONDS)
      const openSession = (partnerId: PartnerId, ttlSeconds: number) =>
        Effect.gen(function* (): Effect.fn.Return<OpenedSession, StoreError> {
          const token = toBase64Url(yield* secrets.randomBytes(32))
          const now = yield* Clock.currentTimeMillis
          const expiresAt = now + clampTtl(ttlSeconds) * 1000
          const sessionId = yield* ids.next
          yield* sessions.create({
            id: sessionId,
            partnerId,
            tokenHash: yield* secrets.keyedHash(token),
            createdAt: now,
            expiresAt
          })
          return { token, expiresAt, sessionId }
        })

      const access: AccessShape = {
        createPartner: (name) =>
          Effect.gen(function* () {
            const partner: Partner = {
              id: yield* ids.nextId(PartnerId),
              name,
              createdAt: yield* Clock.currentTimeMillis
            }
            yield* partners.create(partner)
            return partner
          }),
        getPartner,
        createSession: (partnerId, ttlSeconds = DEFAULT_SESSION_TTL_SECONDS) =>
          Effect.zipRight(getPartner(partnerId), openSession(partnerId, ttlSeconds)),
        createSignIn: (partnerId, ttlSeconds = DEFAULT_SESSION_TTL_SECONDS) =>
          Effect.gen(function* () {
            yield* getPartner(partnerId)
            const token = toBase64Url(yield* secrets.randomBytes(32))
            const now = yield* Clock.currentTimeMillis
            const expiresAt = now + SIGN_IN_TTL_SECONDS * 1000
            yield* sessions.createSignIn({
              partnerId,
              tokenHash: yield* secrets.keyedHash(token),
              sessionTtlSeconds: clampTtl(ttlSeconds),
              createdAt: now,
              expiresAt
            })
            return { token, expiresAt }
          }),
        redeemSignIn: (token) =>
          Effect.gen(function* () {
            if (token.length === 0 || token.length > 256)
              return yield* new SignInLinkInvalid({ message: "the sign-in link is incomplete", reason: "unknown" })
            const found = yield* sessions.redeemSignIn(yield* secrets.keyedHash(token), yield* Clock.currentTimeMillis)
            if (found._tag === "Refused")
              return yield* new SignInLinkInvalid({
                message: `the sign-in link is ${found.reason}`,
                reason: found.reason
              })
            const session = yield* openSession(found.record.partnerId, found.record.sessionTtlSeconds)
            return { ...session, partnerId: found.record.partnerId }
          }),
        endSession: (token) =>
          token.length === 0 || token.length > 256
            ? Effect.void
            : Effect.flatMap(secrets.keyedHash(token), sessions.remove),
        authenticateSession: (token) =>
          Effect.gen(function* () {
            if (token.length === 0 || token.length > 256)
              return yield* new SessionRequired({ message: "a cabinet session (cookie service_token) is required" })
            const found = yield* sessions.findByHash(yield* secrets.keyedHash(token))
            if (found === undefined)
              return yield* new SessionRequired({ message: "the cabinet session is unknown; sign in again" })
            if (found.expiresAt <= (yield* Clock.currentTimeMillis))
              return yield* new SessionExpired({ message: "the cabinet session has expired; sign in again" })
            return { partnerId: found.partnerId, sessionId: found.id }
          }),
        // On every API request: plain combinators, no generator.
        authenticateKey: (raw) => {
          if (raw.length === 0)
            return Effect.fail(
              new ApiKeyInvalid({ message: "API key is missing: send it in X-API-Key or Authorization: Bearer" })
            )
          if (!LIVE_KEY.test(raw) && !LEGACY_KEY.test(raw))
            return Effect.fail(new ApiKeyInvalid({ message: "API key is malformed" }))
          return Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.flatMap(
              Effect.flatMap(secrets.keyedHash(raw), keys.findByHash),
              (found): Effect.Effect<ApiKeyRecord, KeyAuthError | StoreError> => {
                const checked = checkAuthenticated(found, now)
                if (Either.isLeft(checked)) return Effect.fail(checked.left)
                const key = checked.right
                return key.lastUsedAt === null || now - key.lastUsedAt >= LAST_USED_RESOLUTION_MS
                  ? Effect.as(keys.touch(key.partnerId, key.id, now), key)
                  : Effect.succeed(key)
              }
            )
          )
        },
        issueKey: (partnerId, cmd) =>
          Effect.gen(function* () {
            const raw = `svc_live_${toHex(yield* secrets.randomBytes(32))}`
            const material = { id: yield* ids.nextId(KeyId), raw, keyHash: yield* secrets.keyedHash(raw) }
            const now = yield* Clock.currentTimeMillis
            const record = yield* keys.issue(partnerId, (existing) =>
              decideIssue(partnerId, existing, cmd, material, now)
            )
            return { raw, view: keyView(record, now) }
          }),
        issueLegacyKey: (partnerId) =>
          Effect.gen(function* () {
            yield* getPartner(partnerId)
            const raw = `svc_${toHex(yield* secrets.randomBytes(16))}`
            const now = yield* Clock.currentTimeMillis
            yield* keys.insert({
              id: yield* ids.nextId(KeyId),
              partnerId,
              kind: "legacy",
              keyHash: yield* secrets.keyedHash(raw),
              prefix: raw.slice(0, 16),
              label: "legacy service key",
              access: "full",
              scopes: [],
              createdAt: now,
              lastUsedAt: null,
              expiresAt: null,
              revokedAt: null,
              revokeReason: null
            })
            return raw
          }),
        changeKey: (partnerId, id, cmd) =>
          Effect.gen(function* () {
            const updated = yield* keys.update(partnerId, id, (k) => decideChange(k, cmd))
            if (updated === undefined) return yield* new ApiKeyNotFound({ message: `no API key ${id}` })
            return keyView(updated, yield* Clock.currentTimeMillis)
          }),
        revokeKey: (partnerId, id, reason) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            keys.revoke(partnerId, id, reason === undefined || reason.length === 0 ? null : reason, now)
          ),
        listKeys: (partnerId, viewer) =>
          Effect.gen(function* () {
            const now = yield* Clock.currentTimeMillis
            return (yield* keys.list(partnerId)).map((k) => keyView(k, now, viewer))
          })
      }
      return access
    })
  )
}

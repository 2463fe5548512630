/**
 * Cabinet sessions (cookie `service_token`) and the one-time sign-in links that open them: opaque
 * random tokens, stored only as keyed hashes.
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../StoreError.js"
import { DAY_SECONDS } from "../timeUnits.js"
import type { PartnerId } from "../EntityIds.js"

export const DEFAULT_SESSION_TTL_SECONDS = DAY_SECONDS
/** The longest a cabinet session may live, in seconds. */
export const MAX_SESSION_TTL_SECONDS = 30 * DAY_SECONDS

/** A cabinet session as stored: its token hash, partner and expiry. */
export interface SessionRecord {
  readonly id: string
  readonly partnerId: PartnerId
  readonly tokenHash: string
  readonly createdAt: number
  readonly expiresAt: number
}

/** A sign-in link lives this long and opens one session. */
export const SIGN_IN_TTL_SECONDS = 15 * 60

/** A one-time sign-in link as stored: its token hash, partner and the session it opens. */
export interface SignInRecord {
  readonly partnerId: PartnerId
  readonly tokenHash: string
  /** The lifetime of the session the link opens. */
  readonly sessionTtlSeconds: number
  readonly createdAt: number
  readonly expiresAt: number
}

/** What redeeming a sign-in token found: the link's record (now used), or why it cannot be used. */
export type SignInRedemption =
  | { readonly _tag: "Redeemed"; readonly record: SignInRecord }
  | { readonly _tag: "Refused"; readonly reason: "unknown" | "used" | "expired" }

/** The session store's operations: cabinet sessions and one-time sign-in links. */
export interface SessionStoreShape {
  readonly create: (session: SessionRecord) => Effect.Effect<void, StoreError>
  readonly findByHash: (tokenHash: string) => Effect.Effect<SessionRecord | undefined, StoreError>
  /** Ends a session (sign-out); unknown hashes are ignored. */
  readonly remove: (tokenHash: string) => Effect.Effect<void, StoreError>
  readonly createSignIn: (record: SignInRecord) => Effect.Effect<void, StoreError>
  /** Marks the link used at `now` when it is unused and unexpired, atomically (a link opens one session). */
  readonly redeemSignIn: (tokenHash: string, now: number) => Effect.Effect<SignInRedemption, StoreError>
}

/** Port: where cabinet sessions and one-time sign-in links are kept. */
export class SessionStore extends Context.Tag("@frank/core/SessionStore")<SessionStore, SessionStoreShape>() {}

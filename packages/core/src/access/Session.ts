/**
 * Cabinet sessions (cookie `service_token`): opaque random tokens, stored only as keyed hashes.
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../StoreError.js"
import { DAY_SECONDS } from "../timeUnits.js"

export const DEFAULT_SESSION_TTL_SECONDS = DAY_SECONDS
export const MAX_SESSION_TTL_SECONDS = 30 * DAY_SECONDS

export interface SessionRecord {
  readonly id: string
  readonly partnerId: string
  readonly tokenHash: string
  readonly createdAt: number
  readonly expiresAt: number
}

export interface SessionStoreShape {
  readonly create: (session: SessionRecord) => Effect.Effect<void, StoreError>
  readonly findByHash: (tokenHash: string) => Effect.Effect<SessionRecord | undefined, StoreError>
}

export class SessionStore extends Context.Tag("@frank/core/SessionStore")<SessionStore, SessionStoreShape>() {}

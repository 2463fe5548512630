/**
 * The origin of the changes a fiber makes: who acts and from which request. The edges set it once
 * per request (the partner API's security middleware, the cabinet's guard, the admin API's token
 * check) and every audited change below reads it, so services and handlers never pass it along.
 * Outside any request it is the system.
 */
import { Effect, FiberRef } from "effect"
import { type AuditOrigin, systemOrigin } from "./AuditRecord.js"

/** The request-scoped origin of audited changes (the system when no edge set one). */
export const currentAuditOrigin: FiberRef.FiberRef<AuditOrigin> = FiberRef.unsafeMake<AuditOrigin>(systemOrigin)

/** Runs `effect` with changes attributed to `origin`. */
export const withAuditOrigin =
  (origin: AuditOrigin) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.locally(effect, currentAuditOrigin, origin)

/** Attributes the current fiber's remaining changes to `origin` (an edge, once per request fiber). */
export const setAuditOrigin = (origin: AuditOrigin): Effect.Effect<void> => FiberRef.set(currentAuditOrigin, origin)

/** Printable ASCII, 1..128 characters: the spec's Idempotency-Key; anything else is not recorded. */
export const auditIdempotencyKey = (header: string | undefined): string | null =>
  header !== undefined && /^[\x20-\x7e]{1,128}$/.test(header) ? header : null

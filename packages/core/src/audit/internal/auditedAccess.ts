/**
 * Access with every change recorded: partners, sessions and sign-ins, API keys. Each change and
 * its record run in one transaction (`AuditLog.recorded`). Tokens and raw keys stay out: a record
 * names the session or key by id and lists the fields set.
 */
import { Effect, Either, FiberRef } from "effect"
import type { AccessShape } from "../../access/Access.js"
import { currentAuditOrigin, withAuditOrigin } from "../AuditContext.js"
import type { AuditLogShape } from "../AuditLog.js"
import { fieldsOf } from "./fieldsOf.js"

const keyFields = { expiresInDays: "expiresAt" }

/** Records made by the session itself (signing in, signing out), from the request's origin. */
const asSession =
  (sessionId: string, label: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(FiberRef.get(currentAuditOrigin), (origin) =>
      withAuditOrigin({ ...origin, actor: { type: "session", id: sessionId, label } })(effect)
    )

/** `access` whose changes `log` records. */
export const auditedAccess = (access: AccessShape, log: AuditLogShape): AccessShape => ({
  ...access,
  createPartner: (name) =>
    log.atomically(
      Effect.tap(access.createPartner(name), (p) =>
        log.record(p.id, { action: "partner.created", target: { type: "partner", id: p.id }, changes: ["name"] })
      )
    ),
  createSession: (partnerId, ttlSeconds) =>
    log.recorded(
      partnerId,
      (s) => ({ action: "session.created", target: { type: "session", id: s.sessionId }, changes: ["expiresAt"] }),
      access.createSession(partnerId, ttlSeconds)
    ),
  createSignIn: (partnerId, ttlSeconds) =>
    log.recorded(
      partnerId,
      { action: "sign_in_link.created", target: { type: "partner", id: partnerId }, changes: ["expiresAt"] },
      access.createSignIn(partnerId, ttlSeconds)
    ),
  // Whoever redeems a link is the session it opens.
  redeemSignIn: (token) =>
    log.atomically(
      Effect.tap(access.redeemSignIn(token), (s) =>
        asSession(
          s.sessionId,
          "cabinet sign-in"
        )(
          log.record(s.partnerId, {
            action: "session.signed_in",
            target: { type: "session", id: s.sessionId },
            changes: ["expiresAt"]
          })
        )
      )
    ),
  // The token names the partner only through its session: an unknown or expired one ends nothing to record.
  endSession: (token) =>
    log.atomically(
      Effect.flatMap(Effect.either(access.authenticateSession(token)), (found) =>
        Effect.zipRight(
          access.endSession(token),
          Either.isLeft(found)
            ? Effect.void
            : asSession(
                found.right.sessionId,
                "cabinet sign-out"
              )(
                log.record(found.right.partnerId, {
                  action: "session.ended",
                  target: { type: "session", id: found.right.sessionId },
                  changes: ["endedAt"]
                })
              )
        )
      )
    ),
  issueKey: (partnerId, cmd) =>
    log.recorded(
      partnerId,
      (issued) => ({
        action: "api_key.issued",
        target: { type: "api_key", id: issued.view.id },
        changes: ["access", ...fieldsOf(cmd, keyFields)]
      }),
      access.issueKey(partnerId, cmd)
    ),
  issueLegacyKey: (partnerId) =>
    log.recorded(
      partnerId,
      { action: "api_key.issued", target: { type: "legacy_api_key", id: partnerId }, changes: ["access", "label"] },
      access.issueLegacyKey(partnerId)
    ),
  // Scopes can only narrow (ApiKey.decideChange): a change of scopes is a narrowing.
  changeKey: (partnerId, id, cmd) =>
    log.recorded(
      partnerId,
      {
        action: cmd.scopes !== undefined ? "api_key.narrowed" : "api_key.renamed",
        target: { type: "api_key", id },
        changes: fieldsOf({ label: cmd.label, scopes: cmd.scopes, access: cmd.scopes })
      },
      access.changeKey(partnerId, id, cmd)
    ),
  revokeKey: (partnerId, id, reason) =>
    log.recorded(
      partnerId,
      (found) =>
        found
          ? {
              action: "api_key.revoked",
              target: { type: "api_key", id },
              changes: reason === undefined || reason.length === 0 ? ["revokedAt"] : ["revokedAt", "revokeReason"]
            }
          : undefined,
      access.revokeKey(partnerId, id, reason)
    )
})

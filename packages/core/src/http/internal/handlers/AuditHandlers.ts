/**
 * Handler of the audit group: the query checked (every problem at once), a page of the log.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Either } from "effect"
import { decodeAuditCursor } from "../../../audit/auditCursor.js"
import { AuditLog } from "../../../audit/AuditLog.js"
import { AUDIT_ACTION, type AuditRecord, DEFAULT_AUDIT_PAGE_SIZE } from "../../../audit/AuditRecord.js"
import { iso } from "../../../isoTime.js"
import { parseIsoBound } from "../../../ledger/EntryFilter.js"
import { validationFailed } from "../../errors/ApiError.js"
import type { AuditLogQuery, AuditRecordView } from "../../groups/AuditGroup.js"
import { PartnerApi } from "../../PartnerApi.js"
import { CurrentPartner } from "../Security.js"

/** The API's view of a record (the partner is the caller's, so not repeated). */
export const auditRecordView = (r: AuditRecord): AuditRecordView => ({
  id: r.id,
  at: iso(r.at),
  actor: r.actor,
  action: r.action,
  target: r.target,
  requestId: r.requestId,
  ip: r.ip,
  idempotencyKey: r.idempotencyKey,
  changes: r.changes
})

/** The query as a store query, or every problem with it. */
export const auditQuery = (q: typeof AuditLogQuery.Type) => {
  const problems: string[] = []
  const from = q.dateFrom === undefined ? undefined : parseIsoBound(q.dateFrom, "from")
  const to = q.dateTo === undefined ? undefined : parseIsoBound(q.dateTo, "to")
  if (q.dateFrom !== undefined && from === undefined) problems.push("dateFrom must be an ISO 8601 date or date-time")
  if (q.dateTo !== undefined && to === undefined) problems.push("dateTo must be an ISO 8601 date or date-time")
  if (from !== undefined && to !== undefined && from >= to) problems.push("dateFrom must be before dateTo")
  if (q.action !== undefined && !AUDIT_ACTION.test(q.action))
    problems.push("action must look like `api_key.revoked` (lowercase words joined by dots)")
  const cursor = q.cursor === undefined ? undefined : decodeAuditCursor(q.cursor)
  if (cursor !== undefined && Either.isLeft(cursor)) problems.push(`cursor: ${cursor.left}`)
  if (problems.length > 0) return Either.left(problems)
  return Either.right({
    query: { action: q.action, from, to, limit: q.limit ?? DEFAULT_AUDIT_PAGE_SIZE },
    after: cursor === undefined ? undefined : Either.getOrUndefined(cursor)
  })
}

/** The audit group's handler layer. */
export const AuditHandlers = HttpApiBuilder.group(PartnerApi, "audit", (handlers) =>
  Effect.gen(function* () {
    const log = yield* AuditLog
    return handlers.handle("list", ({ urlParams }) =>
      Effect.gen(function* () {
        const { partnerId } = yield* CurrentPartner
        const parsed = auditQuery(urlParams)
        if (Either.isLeft(parsed)) return yield* Effect.fail(validationFailed(parsed.left))
        const page = yield* Effect.orDie(log.list(partnerId, parsed.right.query, parsed.right.after))
        return { items: page.items.map(auditRecordView), nextCursor: page.nextCursor }
      })
    )
  })
)

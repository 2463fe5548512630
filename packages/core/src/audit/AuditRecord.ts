/**
 * One entry of a partner's audit log: who (actor) did what (action) to what (target), from which
 * request, and which fields the change touched. `changes` holds field names only, never values,
 * so no secret, key or token can reach the log.
 */
import type { PartnerId } from "../EntityIds.js"

/** Who made a change: an API key, a cabinet session, the operator (admin API) or Frank itself. */
export type AuditActorType = "api_key" | "session" | "admin" | "system"

/** The actor of a change; `id` and `label` name the key, session or admin token when known. */
export interface AuditActor {
  readonly type: AuditActorType
  readonly id: string | null
  readonly label: string | null
}

/** What a change was made to (`api_key`, `webhook_endpoint`, `partner`, …) and its id. */
export interface AuditTarget {
  readonly type: string
  readonly id: string
}

/** The request a change came from; empty fields when it came from no request (a worker). */
export interface AuditOrigin {
  readonly actor: AuditActor
  readonly requestId: string | null
  readonly ip: string | null
  readonly idempotencyKey: string | null
}

/** What a caller says about its change; the log adds id, time and origin. */
export interface AuditChange {
  /** `<target type>.<verb in the past>`, e.g. `api_key.revoked`. */
  readonly action: string
  readonly target: AuditTarget
  /** Names of the fields the change set (never their values). */
  readonly changes: ReadonlyArray<string>
}

/** One stored audit record. */
export interface AuditRecord extends AuditChange, AuditOrigin {
  readonly id: string
  readonly partnerId: PartnerId
  /** When the change was made (epoch ms). */
  readonly at: number
}

/** The actor of changes Frank makes on its own (the worker, retention, the sandbox clock). */
export const systemActor: AuditActor = { type: "system", id: null, label: null }

/** The origin of a change made outside any request. */
export const systemOrigin: AuditOrigin = { actor: systemActor, requestId: null, ip: null, idempotencyKey: null }

/** The spec's page size bounds (1..100, default 20). */
export const DEFAULT_AUDIT_PAGE_SIZE = 20
export const MAX_AUDIT_PAGE_SIZE = 100

/** Action names: lowercase words with `_`, one or more `.` sections (`api_key.revoked`). */
export const AUDIT_ACTION = /^[a-z][a-z_]*(\.[a-z][a-z_]*)+$/

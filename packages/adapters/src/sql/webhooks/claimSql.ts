/**
 * The claim and the lease, the queue's statements about who holds a delivery: claiming due
 * deliveries under a lease and a claim token, marking a claimed batch sent right before its
 * requests go out (one `webhook_sent_claims` row per claim token, not a write per delivery), and
 * what becomes of a lease that ran out. The claim and the mark are PL/pgSQL functions (since
 * migration 0008), so Postgres keeps their plans instead of planning every few milliseconds; the
 * newest migration defining them holds their live text, the claim on the view
 * `webhook_claimable_deliveries`, the one definition of "claimable".
 *
 * Uncertain means sent: at lease expiry a delivery whose request the worker marked becomes
 * `uncertain` (core's `LeaseExpired` with `sent`), one claimed but never sent is pending again,
 * due now, its attempt uncounted; of an endpoint deleted meanwhile, it is removed as the
 * endpoint's other pending deliveries were (the `KEY SHARE` lock waits for a deletion in progress,
 * as pendingGuard.ts does for retries).
 */
import type { Events, Ids, Webhooks, WebhookSigning } from "@frank/core"
import { Effect } from "effect"
import { storeError, type WebhookSql } from "./webhookSql.js"
import type { DeliveryQueueShape } from "@frank/core/stores"

/**
 * A claimed row as the driver returns it: read without @effect/sql's name transform (the claim is
 * the hot path, and the row is mapped to a ClaimedDelivery right away anyway).
 */
interface ClaimRow {
  readonly partner_id: Ids.PartnerId
  readonly id: Ids.DeliveryId
  readonly endpoint_id: Ids.EndpointId
  readonly event_id: string
  readonly event_type: Events.EventType
  readonly attempts: number
  readonly lease_until: number
  readonly payload: string
  readonly url: string
  readonly secret: string
  readonly previous_secret: string | null
  readonly previous_secret_valid_until: number | null
  readonly signature_scheme: WebhookSigning.SignatureScheme
  readonly trace_parent: string | null
  readonly created_at: number
}

const claimFromRow =
  (claimToken: string) =>
  (r: ClaimRow): Webhooks.ClaimedDelivery => ({
    partnerId: r.partner_id,
    id: r.id,
    endpointId: r.endpoint_id,
    eventId: r.event_id,
    eventType: r.event_type,
    payload: r.payload,
    url: r.url,
    secret: r.secret,
    previousSecret: r.previous_secret,
    previousSecretValidUntil: r.previous_secret_valid_until,
    signatureScheme: r.signature_scheme,
    traceParent: r.trace_parent,
    state: { status: "delivering", attempts: r.attempts, nextAttemptAt: null, leaseUntil: r.lease_until },
    claimToken,
    createdAt: r.created_at
  })

export const claimSql = ({
  sql,
  untransformed
}: WebhookSql): Pick<DeliveryQueueShape, "claimDue" | "markSent" | "expireLeases"> => {
  return {
    claimDue: (now: number, leaseMs: number, limit: number, claimToken: string) =>
      untransformed<ClaimRow>`SELECT * FROM webhook_claim_due(${now}, ${now + leaseMs}, ${limit}, ${claimToken})`.pipe(
        Effect.map((rows) => rows.map(claimFromRow(claimToken))),
        Effect.mapError(storeError("claimDue"))
      ),

    markSent: (claims: ReadonlyArray<Webhooks.ClaimedDelivery>, now: number) => {
      if (claims.length === 0) return Effect.void
      // One row per claim token: the worker's batch is one claim, so usually one.
      const leases = new Map<string, number>()
      for (const c of claims) if (c.state.leaseUntil !== null) leases.set(c.claimToken, c.state.leaseUntil)
      return untransformed`SELECT webhook_mark_sent(${[...leases.keys()]}::text[], ${[...leases.values()]}::bigint[], ${now})`.pipe(
        Effect.asVoid,
        Effect.mapError(storeError("markSent"))
      )
    },

    // The sweep's statement is a function (migration 0034, which tells the three sets it settles):
    // sent as text it was planned over every day slot at each call.
    expireLeases: (now: number) =>
      sql<{ n: number }>`SELECT webhook_expire_leases(${now}) AS n`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0),
        Effect.mapError(storeError("expireLeases"))
      )
  }
}

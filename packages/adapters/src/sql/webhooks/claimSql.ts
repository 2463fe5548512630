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

    // Three disjoint sets by the claim's sent mark and the endpoint's deletion (final once set), each
    // from the leases index; a row a concurrent write moves out of its set is left for the next
    // sweep. A mark goes once no delivery is leased under its token as of this statement's
    // snapshot, so only after the sweep that settled its deliveries.
    expireLeases: (now: number) =>
      sql<{ n: number }>`
      -- Data-modifying CTEs run to completion whether read or not.
      WITH lost AS (
        UPDATE webhook_deliveries d SET status = 'uncertain', lease_until = NULL, claim_token = NULL, updated_at = ${now}
        WHERE d.status = 'delivering' AND d.lease_until <= ${now}
          AND EXISTS (SELECT 1 FROM webhook_sent_claims s WHERE s.claim_token = d.claim_token)
        RETURNING d.partner_id, d.id, d.attempts, d.created_at
      ), unknown AS (
        INSERT INTO webhook_attempts (partner_id, delivery_id, attempt, started_at, duration_ms, response_status, error, delivery_created_at)
        SELECT partner_id, id, attempts, ${now}, 0, NULL, 'outcome unknown: the worker stopped mid-request', created_at FROM lost
      ), requeued AS (
        UPDATE webhook_deliveries d SET status = 'pending', attempts = d.attempts - 1, next_attempt_at = ${now},
          lease_until = NULL, claim_token = NULL, updated_at = ${now}
        WHERE d.status = 'delivering' AND d.lease_until <= ${now}
          AND NOT EXISTS (SELECT 1 FROM webhook_sent_claims s WHERE s.claim_token = d.claim_token)
          AND EXISTS (SELECT 1 FROM webhook_endpoints e
            WHERE e.partner_id = d.partner_id AND e.id = d.endpoint_id AND e.deleted_at IS NULL FOR KEY SHARE)
      ), dropped AS (
        DELETE FROM webhook_deliveries d
        WHERE d.status = 'delivering' AND d.lease_until <= ${now}
          AND NOT EXISTS (SELECT 1 FROM webhook_sent_claims s WHERE s.claim_token = d.claim_token)
          AND EXISTS (SELECT 1 FROM webhook_endpoints e
            WHERE e.partner_id = d.partner_id AND e.id = d.endpoint_id AND e.deleted_at IS NOT NULL)
        RETURNING d.partner_id, d.id, d.created_at
      ), dropped_attempts AS (
        DELETE FROM webhook_attempts a USING dropped WHERE a.partner_id = dropped.partner_id AND a.delivery_id = dropped.id
          AND a.delivery_created_at IN (dropped.created_at, 0)
      ), spent_marks AS (
        DELETE FROM webhook_sent_claims s WHERE s.lease_until <= ${now}
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
            WHERE d.status = 'delivering' AND d.lease_until = s.lease_until AND d.claim_token = s.claim_token)
      )
      SELECT count(*)::int AS n FROM lost`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0),
        Effect.mapError(storeError("expireLeases"))
      )
  }
}

/** Delivery rows as the SQL delivery log reads them, with their attempts' status codes and last error. */
import type { Events, Ids, Webhooks } from "@frank/core"

export interface DeliveryRow {
  readonly partnerId: Ids.PartnerId
  readonly id: Ids.DeliveryId
  readonly endpointId: Ids.EndpointId
  readonly eventId: string
  readonly eventType: Events.EventType
  readonly status: Webhooks.DeliveryStatus
  readonly attempts: number
  readonly nextAttemptAt: number | null
  readonly leaseUntil: number | null
  readonly createdAt: number
  readonly updatedAt: number
  /**
   * Status codes as text ("503,-,200", `-` for no answer): @effect/sql's name transform would
   * trip over a JSON array that starts with null.
   */
  readonly responseCodes: string
  readonly lastError: string | null
}

/**
 * The columns of a `DeliveryRow`, of `webhook_deliveries d`. Attempts are read in the delivery's
 * time partition and the legacy mark 0 (migration 0032), not in every partition.
 */
export const DELIVERY_COLUMNS = `d.partner_id, d.id, d.endpoint_id, d.event_id, d.event_type, d.status, d.attempts, d.next_attempt_at,
  d.lease_until, d.created_at, d.updated_at,
  coalesce((SELECT string_agg(coalesce(a.response_status::text, '-'), ',' ORDER BY a.n) FROM webhook_attempts a
    WHERE a.partner_id = d.partner_id AND a.delivery_id = d.id AND a.delivery_created_at IN (d.created_at, 0)), '') AS response_codes,
  (SELECT a.error FROM webhook_attempts a WHERE a.partner_id = d.partner_id AND a.delivery_id = d.id
    AND a.delivery_created_at IN (d.created_at, 0) ORDER BY a.n DESC LIMIT 1) AS last_error`

const parseCodes = (text: string): ReadonlyArray<number | null> =>
  text === "" ? [] : text.split(",").map((c) => (c === "-" ? null : Number(c)))

export const deliveryFromRow = (r: DeliveryRow): Webhooks.DeliveryRecord => ({
  ...r,
  responseCodes: parseCodes(r.responseCodes)
})

/** Endpoint rows as the SQL webhook store reads them, health columns flat beside the endpoint's. */
import type { Webhooks } from "@frank/core"

/**
 * Rows come back as the record itself (names transformed to camelCase; int8 parsed to numbers),
 * with the health columns (`endpointHealthSql`) flat beside the endpoint's.
 */
export type EndpointRow = Omit<Webhooks.WebhookEndpoint, "health"> & Webhooks.EndpointHealth

export const ENDPOINT_COLUMNS =
  "partner_id, id, url, event_types, active, secret, previous_secret, previous_secret_valid_until, created_at, updated_at" +
  // Migration 0017.
  ", signature_scheme" +
  // Migration 0029: the rate beside the endpoint, a row only for a limited one (null: unlimited).
  ", (SELECT r.per_second FROM webhook_endpoint_rates r" +
  " WHERE r.partner_id = webhook_endpoints.partner_id AND r.endpoint_id = webhook_endpoints.id) AS rate_limit_per_second"

export const endpointFromRow = (r: EndpointRow): Webhooks.WebhookEndpoint => {
  const { lastSuccessAt, failingSince, disabledAt, disabledReason, strikes, strikesSince, ...endpoint } = r
  return {
    ...endpoint,
    eventTypes: r.eventTypes === null ? null : [...r.eventTypes],
    health: { lastSuccessAt, failingSince, disabledAt, disabledReason, strikes, strikesSince }
  }
}

/**
 * The event the health rule's pause emits (docs/contract.md §5 "event data"):
 * `webhook.endpoint.disabled` with `{endpointId, url, failingSince}`, to the partner's other
 * endpoints subscribed to it (the paused one is inactive by then, so the fan-out leaves it out).
 * Its id derives from the endpoint and the pause's time: one pause, one event.
 */
import type { EventDraft } from "../../events/Event.js"
import type { WebhookEndpoint } from "../Endpoint.js"
import { iso } from "../../isoTime.js"

export const endpointDisabledEvent = (endpoint: WebhookEndpoint): EventDraft => {
  const { failingSince, strikesSince, disabledAt } = endpoint.health
  // A pause for failing counts dead letters, so the failing span has begun; the fallbacks only
  // keep the field a time should a store ever hold otherwise.
  const since = failingSince ?? strikesSince ?? disabledAt ?? endpoint.updatedAt
  return {
    type: "webhook.endpoint.disabled",
    sourceId: `${endpoint.id}:${disabledAt ?? endpoint.updatedAt}`,
    data: { endpointId: endpoint.id, url: endpoint.url, failingSince: iso(since) }
  }
}

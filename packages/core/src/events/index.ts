/**
 * The `Events` namespace: webhook event types and payloads, the event catalog, the transactional
 * outbox, and the ports that store and announce events.
 */
export { DeliveryWakeup } from "./DeliveryWakeup.js"
export { encodeEnvelope, type EventTarget, sourceEventId, type WebhookEvent } from "./Event.js"
export { EventAnnouncer, type EventAnnouncerShape } from "./EventAnnouncer.js"
export { eventCatalog } from "./EventCatalog.js"
export { EventData } from "./EventData.js"
export { allEventTypes, EventType } from "./EventType.js"
export { Outbox } from "./Outbox.js"
